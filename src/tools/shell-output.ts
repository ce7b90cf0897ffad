// What a shell command printed, as text the model can read: capped (head and tail kept, the cut stated)
// and decoded so that bytes which are not UTF-8 survive as `\xNN` instead of vanishing into U+FFFD.
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
}

/** Reads a command's output file: all of it when small, else its head and tail with the cut stated. */
export async function readCapturedOutput(path: string): Promise<CapturedOutput> {
  const file = Bun.file(path);
  if (!(await file.exists())) return { text: "", totalBytes: 0, capped: false };
  const total = file.size;
  if (total <= SHELL_MAX_OUTPUT_BYTES) {
    return { text: decodeOutput(new Uint8Array(await file.arrayBuffer())), totalBytes: total, capped: false };
  }
  const head = new Uint8Array(await file.slice(0, HEAD_BYTES + 4).arrayBuffer());
  const tailStart = total - (SHELL_MAX_OUTPUT_BYTES - HEAD_BYTES);
  const tail = new Uint8Array(await file.slice(tailStart - 4, total).arrayBuffer());
  const headEnd = charBoundary(head, HEAD_BYTES);
  const tailFrom = charBoundary(tail, 4);
  const omitted = total - headEnd - (tail.length - tailFrom);
  const text =
    decodeOutput(head.subarray(0, headEnd)) +
    `\n[... ${formatBytes(omitted)} omitted: output was ${formatBytes(total)}, capped at ${formatBytes(SHELL_MAX_OUTPUT_BYTES)} ` +
    `(first ${formatBytes(HEAD_BYTES)} and last ${formatBytes(SHELL_MAX_OUTPUT_BYTES - HEAD_BYTES)} shown). ` +
    "Redirect to a file and read or grep it to see the rest ...]\n" +
    decodeOutput(tail.subarray(tailFrom));
  return { text, totalBytes: total, capped: true };
}
