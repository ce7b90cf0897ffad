// A compiled multi-word scanner (Aho-Corasick as a dense DFA over character classes) and the
// redactor built on it. One pass over the text finds every secret word, however many there are; the
// streaming form carries the automaton across chunks and holds back only the tail that could still
// become a secret, so a secret split over adjacent output chunks is redacted all the same.
import { REDACTED } from "../util/redact.ts";

export class SecretScanner {
  /** Character code -> class (0 = a character no secret word contains). */
  private readonly classOf = new Uint16Array(65536);
  private readonly classes: number;
  /** next[state * classes + class] */
  private readonly next: Int32Array;
  /** Length of the longest word ending in this state (0 = none). */
  private readonly matchLen: Int32Array;
  /** Depth of each state: how many trailing characters may still begin a word. */
  private readonly depth: Int32Array;
  readonly empty: boolean;

  constructor(words: Iterable<string>) {
    const list = [...new Set([...words].filter((w) => w.length > 0))];
    this.empty = list.length === 0;
    let classes = 1;
    for (const w of list) for (let i = 0; i < w.length; i++) if (this.classOf[w.charCodeAt(i)] === 0) this.classOf[w.charCodeAt(i)] = classes++;
    this.classes = classes;

    // Trie first, as child maps; then breadth-first failure links folded into a full transition table.
    const children: Map<number, number>[] = [new Map()];
    const len: number[] = [0];
    const depth: number[] = [0];
    for (const w of list) {
      let s = 0;
      for (let i = 0; i < w.length; i++) {
        const c = this.classOf[w.charCodeAt(i)]!;
        let t = children[s]!.get(c);
        if (t === undefined) {
          t = children.length;
          children.push(new Map());
          len.push(0);
          depth.push(depth[s]! + 1);
          children[s]!.set(c, t);
        }
        s = t;
      }
      len[s] = w.length;
    }
    const n = children.length;
    const next = new Int32Array(n * classes);
    const fail = new Int32Array(n);
    const matchLen = Int32Array.from(len);
    const queue: number[] = [];
    for (let c = 1; c < classes; c++) {
      const t = children[0]!.get(c);
      if (t !== undefined) {
        next[c] = t;
        queue.push(t);
      }
    }
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q]!;
      matchLen[s] = Math.max(matchLen[s]!, matchLen[fail[s]!]!);
      for (let c = 1; c < classes; c++) {
        const t = children[s]!.get(c);
        if (t !== undefined) {
          fail[t] = next[fail[s]! * classes + c]!;
          next[s * classes + c] = t;
          queue.push(t);
        } else {
          next[s * classes + c] = next[fail[s]! * classes + c]!;
        }
      }
    }
    this.next = next;
    this.matchLen = matchLen;
    this.depth = Int32Array.from(depth);
  }

  /**
   * Scans `text` from the root state. Returns the merged [start, end) ranges of every secret found and
   * the number of trailing characters that could still begin a secret.
   */
  scan(text: string): { ranges: number[]; pending: number } {
    const ranges: number[] = [];
    if (this.empty) return { ranges, pending: 0 };
    const classOf = this.classOf;
    const next = this.next;
    const matchLen = this.matchLen;
    const k = this.classes;
    let s = 0;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const c = classOf[text.charCodeAt(i)]!;
      if (s === 0 && c === 0) continue;
      s = next[s * k + c]!;
      const m = matchLen[s]!;
      if (m !== 0) {
        // Overlapping secrets are merged into one redacted span (a longer word may cover earlier ones).
        let start = i + 1 - m;
        while (ranges.length > 0 && start < ranges[ranges.length - 1]!) {
          start = Math.min(start, ranges[ranges.length - 2]!);
          ranges.length -= 2;
        }
        ranges.push(start, i + 1);
      }
    }
    return { ranges, pending: this.depth[s]! };
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
    const text = this.held + chunk;
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
