// What a shell command printed, as text the model can read: capped (head and tail kept, cut at line
// ends, the cut stated, the whole output kept in a file the model can read) and decoded so that bytes which are not UTF-8 survive as `\xNN` instead of vanishing into U+FFFD.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { formatBytes } from "./file-content.ts";

/** The most command output a result carries. */
export const SHELL_MAX_OUTPUT_BYTES = 30 * 1024;
/** Of the cap, how much comes from the start of the output; the rest is its end (errors tend to be last). */
const HEAD_BYTES = 10 * 1024;

/** Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there does not start one. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  if (b < 0x80) return 1;
  let need: number;
  let min: number;
  if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
  else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
  else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
  else return 0;
  if (i + need >= bytes.length) return 0;
  let cp = b & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
  for (let k = 1; k <= need; k++) {
    const c = bytes[i + k]!;
    if ((c & 0xc0) !== 0x80) return 0;
    cp = (cp << 6) | (c & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return need + 1;
}

/** UTF-8 text, with every byte that is not part of a valid sequence written as `\xNN`. */
export function decodeOutput(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const decoder = new TextDecoder();
    let out = "";
    let start = 0;
    let i = 0;
    while (i < bytes.length) {
      const n = sequenceLength(bytes, i);
      if (n > 0) {
        i += n;
        continue;
      }
      out += decoder.decode(bytes.subarray(start, i)) + `\\x${bytes[i]!.toString(16).padStart(2, "0")}`;
      i++;
      start = i;
    }
    return out + decoder.decode(bytes.subarray(start));
  }
}

/** Moves `at` back to the start of the UTF-8 character it falls inside, so a cut never splits one. */
function charBoundary(bytes: Uint8Array, at: number): number {
  let i = at;
  while (i > 0 && i > at - 4 && ((bytes[i] ?? 0) & 0xc0) === 0x80) i--;
  return (bytes[i]! & 0xc0) === 0x80 ? at : i;
}

export interface CapturedOutput {
  text: string;
  totalBytes: number;
  capped: boolean;
  /** Where the whole output was kept, when it was over the cap and a place was given. */
  keptAt?: string;
}

/** The first byte of the line holding `at` (just after the newline before it), or -1 when that is not within `from`..`at`. */
function lineStartBefore(bytes: Uint8Array, at: number, from: number): number {
  for (let i = at - 1; i >= from; i--) if (bytes[i] === 0x0a) return i + 1;
  return -1;
}

/** The first byte after the newline at or after `at`, or -1 when there is none before `to`. */
function lineStartAfter(bytes: Uint8Array, at: number, to: number): number {
  for (let i = at; i < to; i++) if (bytes[i] === 0x0a) return i + 1;
  return -1;
}

function countLines(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (bytes[i] === 0x0a) n++;
  return n;
}

/**
 * Reads a command's output file: all of it when small, else its head and tail, cut at line ends, with
 * the cut stated. `keepAs`: where the whole output is copied when it is over the cap, so the model can
 * page through it with `read`.
 */
export async function readCapturedOutput(path: string, keepAs?: string): Promise<CapturedOutput> {
  const file = Bun.file(path);
  if (!(await file.exists())) return { text: "", totalBytes: 0, capped: false };
  const total = file.size;
  if (total <= SHELL_MAX_OUTPUT_BYTES) {
    return { text: decodeOutput(new Uint8Array(await file.arrayBuffer())), totalBytes: total, capped: false };
  }
  // At most SHELL_MAX_CAPTURE_BYTES (the session kills a command past it): small enough to scan for lines.
  const bytes = new Uint8Array(await file.arrayBuffer());
  const tailBudget = SHELL_MAX_OUTPUT_BYTES - HEAD_BYTES;
  // Whole lines, unless that gives up more than half of a part (one very long line is cut inside it).
  const headLine = lineStartBefore(bytes, HEAD_BYTES, HEAD_BYTES / 2);
  const headEnd = headLine > 0 ? headLine : charBoundary(bytes, HEAD_BYTES);
  const tailCut = total - tailBudget;
  const tailLine = lineStartAfter(bytes, tailCut, tailCut + tailBudget / 2);
  const tailFrom = tailLine > 0 && tailLine < total ? tailLine : charBoundary(bytes, tailCut);
  const omitted = tailFrom - headEnd;
  const headLines = countLines(bytes, 0, headEnd);
  const omittedLines = countLines(bytes, headEnd, tailFrom);
  const totalLines = countLines(bytes, 0, total) + (bytes[total - 1] === 0x0a ? 0 : 1);
  let kept = "Redirect to a file and read or grep it to see the rest";
  let keptAt: string | undefined;
  if (keepAs) {
    try {
      mkdirSync(dirname(keepAs), { recursive: true, mode: 0o700 });
      writeFileSync(keepAs, bytes, { mode: 0o600 });
      keptAt = keepAs;
      kept = `The whole output is in ${keepAs}: read the omitted part with \`read\` (offset ${headLines + 1}, limit ${Math.max(1, omittedLines)}) or search it with \`grep\``;
    } catch (error) {
      kept = `The whole output could not be kept (${(error as Error).message}); redirect to a file and read or grep it to see the rest`;
    }
  }
  const head = decodeOutput(bytes.subarray(0, headEnd));
  const text =
    (head.endsWith("\n") ? head : `${head}\n`) +
    `[... ${omittedLines > 0 ? `lines ${headLines + 1}-${headLines + omittedLines}` : `part of line ${headLines + 1}`} (${formatBytes(omitted)}) omitted: output was ${formatBytes(total)} in ${totalLines} lines, capped at ${formatBytes(SHELL_MAX_OUTPUT_BYTES)} ` +
    `(first ${formatBytes(HEAD_BYTES)} and last ${formatBytes(tailBudget)} shown at most, cut at line ends). ${kept} ...]\n` +
    decodeOutput(bytes.subarray(tailFrom));
  return { text, totalBytes: total, capped: true, ...(keptAt ? { keptAt } : {}) };
}
