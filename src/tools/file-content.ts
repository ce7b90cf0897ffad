// Shared facts about file bytes: text or binary, which image format, line splitting, line hashes.
import type { ImageMediaType } from "./tool.ts";

const SNIFF_BYTES = 8192;

/** Binary when the first 8 KB hold a NUL byte, or when more than 10% of them are control bytes. */
export function isBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return true;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) control++;
  }
  return n > 0 && control / n > 0.1;
}

/** The image format from the magic bytes, whatever the extension says. */
export function imageType(bytes: Uint8Array): ImageMediaType | undefined {
  const at = (i: number) => bytes[i] ?? -1;
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return "image/png";
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return "image/jpeg";
  if (at(0) === 0x47 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x38) return "image/gif";
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/** Splits text into lines without their terminators; a final newline does not make an extra line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function usesCrlf(text: string): boolean {
  const firstLf = text.indexOf("\n");
  return firstLf > 0 && text[firstLf - 1] === "\r";
}

/** 1-based line number of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** A 3-hex-digit hash of a line's text (trailing whitespace ignored) that hashline edits quote back. */
export function lineHash(line: string): string {
  const h = Number(Bun.hash.wyhash(line.trimEnd()) & 0xfffn);
  return h.toString(16).padStart(3, "0");
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** Similarity of two lines in [0, 1] from shared character bigrams (whitespace ignored). */
export function lineSimilarity(a: string, b: string): number {
  const x = a.replace(/\s+/g, "");
  const y = b.replace(/\s+/g, "");
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const grams = new Map<string, number>();
  for (let i = 0; i < x.length - 1; i++) {
    const g = x.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < y.length - 1; i++) {
    const g = y.slice(i, i + 2);
    const count = grams.get(g) ?? 0;
    if (count > 0) {
      grams.set(g, count - 1);
      shared++;
    }
  }
  return (2 * shared) / (x.length + y.length - 2);
}

/** The file line most like `target`, as `{ line (1-based), text, score }`. */
export function closestLine(lines: readonly string[], target: string): { line: number; text: string; score: number } | undefined {
  let best: { line: number; text: string; score: number } | undefined;
  lines.forEach((text, i) => {
    const score = lineSimilarity(text, target);
    if (!best || score > best.score) best = { line: i + 1, text, score };
  });
  return best;
}

/** Clips a line for display in a message. */
export function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}... [${text.length - max} more characters]` : text;
}
