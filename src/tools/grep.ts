// `grep`: regular-expression search over the contents of the catalog's files.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { truncationNote } from "./file-catalog.ts";
import { formatBytes, isBinary } from "./file-content.ts";
import { globMatcher, inScope, outsideLinksNote, searchScope } from "./search-scope.ts";
import { defineTool, toolError } from "./tool.ts";
import description from "./grep.txt" with { type: "text" };

export const GREP_MAX_MATCHES = 500;
export const GREP_MAX_OUTPUT_BYTES = 50 * 1024;
export const GREP_MAX_LINE_CHARS = 300;
/** Files larger than this are skipped (generated bundles, data dumps). */
export const GREP_MAX_FILE_BYTES = 10 * 1024 * 1024;

const YIELD_EVERY_MS = 20;

/**
 * The file's bytes, "too-large" past the cap (checked before reading), or undefined when unreadable. The
 * last component is never followed as a symlink: the catalog may be older than the tree, and a file
 * replaced by a link since must not be read through it.
 */
function readSmallFile(path: string): Uint8Array | "too-large" | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const size = fstatSync(fd).size;
    if (size > GREP_MAX_FILE_BYTES) return "too-large";
    const buffer = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export const GrepInput = Type.Object(
  {
    pattern: Type.String({ minLength: 1, description: "JavaScript regular expression." }),
    glob: Type.Optional(Type.String({ minLength: 1, description: "Only files whose names match this glob, e.g. `*.ts`." })),
    path: Type.Optional(Type.String({ description: "Directory or file to search in (default: the working directory)." })),
    case_insensitive: Type.Optional(Type.Boolean({ description: "Match regardless of case (default false)." })),
  },
  { additionalProperties: false },
);

export const grepTool = defineTool({
  name: "grep",
  description,
  inputSchema: GrepInput,
  async run(input, ctx, signal) {
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern, input.case_insensitive ? "i" : "");
    } catch (error) {
      return toolError(
        `\`${input.pattern}\` is not a valid JavaScript regular expression: ${(error as Error).message}. ` +
          "Escape special characters such as ( [ { . * + ? with a backslash to match them literally.",
      );
    }
    const scope = searchScope(ctx, input.path);
    if (!scope.ok) return toolError(scope.message);
    const snapshot = ctx.fileCatalog.snapshot(signal);
    const match = input.glob ? globMatcher(input.glob) : () => true;
    const files = inScope(snapshot, scope).filter((f) => match(f.local));
    const out: string[] = [];
    let bytes = 0;
    let matches = 0;
    let capped: string | undefined;
    let skippedLarge = 0;
    const decoder = new TextDecoder();
    let lastYield = performance.now();
    search: for (const file of files) {
      // Synchronous reads are about twice as fast as Bun.file for many small files (bench/grep); yield
      // to the event loop every few milliseconds so a cancel can still land.
      if (performance.now() - lastYield > YIELD_EVERY_MS) {
        await Bun.sleep(0);
        lastYield = performance.now();
      }
      signal.throwIfAborted();
      // A listed symlink is read at its real path, which the catalog checked is inside the project.
      const data = readSmallFile(snapshot.links[file.path] ?? join(snapshot.root, file.path));
      if (data === "too-large") {
        skippedLarge++;
        continue;
      }
      if (data === undefined || isBinary(data)) continue;
      const text = decoder.decode(data);
      if (!regex.test(text) && !(regex.source.includes("$") || regex.source.includes("^"))) continue;
      const lines = text.split(/\r?\n/);
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (!regex.test(line)) continue;
        if (matches >= GREP_MAX_MATCHES) {
          capped = `[stopped at ${GREP_MAX_MATCHES} matches; narrow the pattern, glob or path to see the rest]`;
          break search;
        }
        const shown = line.length > GREP_MAX_LINE_CHARS ? `${line.slice(0, GREP_MAX_LINE_CHARS)}... [line cut]` : line;
        const row = `${file.path}:${i + 1}: ${shown}`;
        if (bytes + row.length + 1 > GREP_MAX_OUTPUT_BYTES) {
          capped = `[output capped at ${formatBytes(GREP_MAX_OUTPUT_BYTES)} after ${matches} matches; narrow the pattern, glob or path to see the rest]`;
          break search;
        }
        out.push(row);
        bytes += row.length + 1;
        matches++;
      }
    }
    if (matches === 0) out.push(`No matches for \`${input.pattern}\` in ${files.length} file${files.length === 1 ? "" : "s"}.`);
    if (capped) out.push(capped);
    if (skippedLarge > 0) out.push(`[${skippedLarge} file(s) over ${formatBytes(GREP_MAX_FILE_BYTES)} were not searched]`);
    const links = outsideLinksNote(snapshot, scope, match);
    if (links) out.push(links);
    const note = truncationNote(snapshot);
    if (note) out.push(note);
    return { output: out.join("\n"), metadata: { matches, files: files.length } };
  },
});
