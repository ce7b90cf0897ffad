// A compiled multi-word scanner and the redactor built on it. All secret words are compiled into one
// regular expression, so one native pass over the text finds every one of them (a per-character
// Aho-Corasick loop in JavaScript measured slower here: bench/redaction.ts). The streaming form holds
// back only the tail that could still begin a secret, so a secret split over adjacent output chunks is
// redacted all the same.
import { REDACTED } from "../util/redact.ts";

export class SecretScanner {
  /** One alternation of every word, longest first, so the match at a position is the longest word there. */
  private readonly pattern: RegExp | null;
  /** Every proper prefix of every word: a chunk ending in one may continue into a secret. */
  private readonly prefixes = new Set<string>();
  private readonly longestPrefix: number;
  readonly empty: boolean;

  constructor(words: Iterable<string>) {
    const list = [...new Set([...words].filter((w) => w.length > 0))].sort((a, b) => b.length - a.length);
    this.empty = list.length === 0;
    this.pattern = this.empty ? null : new RegExp(list.map((w) => w.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")).join("|"), "g");
    for (const w of list) for (let n = 1; n < w.length; n++) this.prefixes.add(w.slice(0, n));
    this.longestPrefix = list.length ? list[0]!.length - 1 : 0;
  }

  /**
   * Scans `text`. Returns the merged [start, end) ranges of every secret found (overlapping ones
   * included) and the number of trailing characters that could still begin a secret.
   */
  scan(text: string): { ranges: number[]; pending: number } {
    const ranges: number[] = [];
    const re = this.pattern;
    if (!re) return { ranges, pending: 0 };
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const start = m.index;
      const end = start + m[0].length;
      const last = ranges.length;
      // Overlapping secrets are merged into one redacted span.
      if (last > 0 && start < ranges[last - 1]!) ranges[last - 1] = Math.max(end, ranges[last - 1]!);
      else ranges.push(start, end);
      // The next secret may start inside this one.
      re.lastIndex = start + 1;
    }
    let pending = Math.min(this.longestPrefix, text.length);
    while (pending > 0 && !this.prefixes.has(text.slice(text.length - pending))) pending--;
    return { ranges, pending };
  }

  redact(text: string): string {
    return applyRanges(text, this.scan(text).ranges, text.length);
  }

  /** A redactor for one output stream (a tool's stdout, a model-visible text stream). */
  stream(): StreamRedactor {
    return new StreamRedactor(this);
  }
}

/** `text` up to `end`, with each range replaced by the redaction marker. */
function applyRanges(text: string, ranges: number[], end: number): string {
  if (ranges.length === 0) return end === text.length ? text : text.slice(0, end);
  let out = "";
  let at = 0;
  for (let r = 0; r < ranges.length; r += 2) {
    out += text.slice(at, ranges[r]) + REDACTED;
    at = ranges[r + 1]!;
  }
  return out + text.slice(at, end);
}

export class StreamRedactor {
  private held = "";

  constructor(private readonly scanner: SecretScanner) {}

  /** Feeds a chunk; returns the text that is now safe to show (possibly empty). */
  push(chunk: string): string {
    const text = this.held === "" ? chunk : this.held + chunk;
    const { ranges, pending } = this.scanner.scan(text);
    let cut = text.length - pending;
    // A secret that ends after the cut is held back whole and rescanned with the next chunk.
    for (let r = 0; r < ranges.length; r += 2) {
      if (ranges[r]! < cut && ranges[r + 1]! > cut) cut = ranges[r]!;
    }
    const emitted: number[] = [];
    for (let r = 0; r < ranges.length && ranges[r]! < cut; r += 2) emitted.push(ranges[r]!, ranges[r + 1]!);
    this.held = text.slice(cut);
    return applyRanges(text, emitted, cut);
  }

  /** Flushes what is held back at the end of the stream. */
  end(): string {
    const rest = this.scanner.redact(this.held);
    this.held = "";
    return rest;
  }
}
