// `read`: a file's lines with their numbers (or hashline addresses), images for vision models.
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, extname } from "node:path";
import { Type } from "@sinclair/typebox";
import { formatBytes, imageType, isBinary, lineHash, lineSimilarity, splitLines } from "./file-content.ts";
import { blockedMessage, createBlockChecker } from "./agentblock.ts";
import { displayPath, resolveToolPath } from "./paths.ts";
import { base64Length, defineTool, MAX_IMAGE_BASE64, toolError, type Tool, type ToolResult } from "./tool.ts";
import description from "./read.txt" with { type: "text" };
import hashlineDescription from "./read-hashline.txt" with { type: "text" };

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_OUTPUT_BYTES = 50 * 1024;
export const READ_MAX_LINE_CHARS = 2000;

const IMAGE_EXTENSIONS = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);

export const ReadInput = Type.Object(
  {
    path: Type.String({ minLength: 1, description: "File to read: absolute, or relative to the working directory." }),
    offset: Type.Optional(Type.Integer({ minimum: 1, description: "1-based line to start at (default 1)." })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: `Number of lines to show (default ${READ_DEFAULT_LIMIT}).` })),
  },
  { additionalProperties: false },
);

function missingFile(absolute: string, shown: string): ToolResult {
  let hint = "";
  try {
    const name = basename(absolute).toLowerCase();
    const near = readdirSync(dirname(absolute))
      .map((entry) => ({ entry, score: lineSimilarity(entry.toLowerCase(), name) }))
      .filter((c) => c.score >= 0.5)
      .sort((a, b) => b.score - a.score)
      .map((c) => c.entry);
    if (near.length > 0) hint = ` Similar names in that directory: ${near.slice(0, 5).join(", ")}.`;
  } catch {
    hint = " Its directory does not exist either.";
  }
  return toolError(`No such file: \`${shown}\`.${hint} Use \`glob\` to find the right path.`);
}

/** Numbered lines from `offset`, cut at the line, byte and per-line caps, with the cut stated. */
export function renderLines(lines: readonly string[], offset: number, limit: number, hashline: boolean): string {
  const out: string[] = [];
  let bytes = 0;
  let clippedLines = 0;
  const end = Math.min(lines.length, offset - 1 + limit);
  let last = offset - 1;
  for (let i = offset - 1; i < end; i++) {
    let text = lines[i]!;
    if (text.length > READ_MAX_LINE_CHARS) {
      text = `${text.slice(0, READ_MAX_LINE_CHARS)}... [line cut at ${READ_MAX_LINE_CHARS} characters]`;
      clippedLines++;
    }
    const row = hashline ? `${i + 1}:${lineHash(lines[i]!)}| ${text}` : `${i + 1}| ${text}`;
    const size = Buffer.byteLength(row) + 1;
    if (bytes + size > READ_MAX_OUTPUT_BYTES && out.length > 0) break;
    out.push(row);
    bytes += size;
    last = i + 1;
  }
  const notes: string[] = [];
  if (last < lines.length) {
    const why = last < end ? `output capped at ${formatBytes(READ_MAX_OUTPUT_BYTES)}` : `showing ${limit} lines`;
    notes.push(`[${why}: lines ${offset}-${last} of ${lines.length}; call read with offset=${last + 1} to continue]`);
  }
  if (clippedLines > 0) notes.push(`[${clippedLines} line(s) longer than ${READ_MAX_LINE_CHARS} characters were cut]`);
  return [...out, ...notes].join("\n");
}

export function createReadTool(options: { hashline: boolean }): Tool<typeof ReadInput> {
  return defineTool({
    name: "read",
    description: options.hashline ? hashlineDescription : description,
    inputSchema: ReadInput,
    async run(input, ctx) {
      const absolute = resolveToolPath(ctx, input.path);
      const shown = displayPath(ctx, absolute);
      const blockedBy = createBlockChecker(ctx.projectRoot)(absolute);
      if (blockedBy) return toolError(blockedMessage(shown, blockedBy, ctx.projectRoot));
      let stat;
      try {
        stat = statSync(absolute);
      } catch {
        return missingFile(absolute, shown);
      }
      if (stat.isDirectory()) return toolError(`\`${shown}\` is a directory, not a file. Use \`glob\` to list its files.`);
      if (!stat.isFile()) return toolError(`\`${shown}\` is not a regular file (a device, socket or pipe); read cannot show it.`);
      const bytes = new Uint8Array(await Bun.file(absolute).arrayBuffer());
      const image = imageType(bytes);
      if (image || IMAGE_EXTENSIONS.has(extname(absolute).toLowerCase())) {
        if (!image) return toolError(`\`${shown}\` has an image extension but is not a PNG, JPEG, GIF or WebP image.`);
        if (!ctx.supportsVision) {
          return toolError(
            `\`${shown}\` is an image (${image}, ${formatBytes(bytes.length)}), and the current model cannot see images. ` +
              "Do not retry; describe what you need from it to the user, or work from its file name and context.",
          );
        }
        if (base64Length(bytes.length) > MAX_IMAGE_BASE64) {
          return toolError(
            `\`${shown}\` is an image of ${formatBytes(bytes.length)} (${formatBytes(base64Length(bytes.length))} as base64), over the ${formatBytes(MAX_IMAGE_BASE64)} ` +
              "of base64 that providers take for one image. Make a smaller copy with the shell (e.g. `convert in.png -resize 50% small.png`) and read that.",
          );
        }
        return {
          output: `Image \`${shown}\` (${image}, ${formatBytes(bytes.length)}).`,
          images: [{ mediaType: image, data: Buffer.from(bytes).toString("base64") }],
          metadata: { path: absolute, bytes: bytes.length, mediaType: image },
        };
      }
      if (isBinary(bytes)) {
        return toolError(
          `\`${shown}\` is a binary file (${formatBytes(bytes.length)}); read only shows text. ` +
            "Use the shell (e.g. `file`, `xxd | head`) if you must inspect it.",
        );
      }
      const lines = splitLines(new TextDecoder().decode(bytes));
      if (lines.length === 0) return { output: `\`${shown}\` is empty (0 lines).`, metadata: { path: absolute, lines: 0 } };
      const offset = input.offset ?? 1;
      if (offset > lines.length) {
        return toolError(`offset ${offset} is past the end of \`${shown}\`, which has ${lines.length} lines; use an offset from 1 to ${lines.length}.`);
      }
      const limit = input.limit ?? READ_DEFAULT_LIMIT;
      return {
        output: renderLines(lines, offset, limit, options.hashline),
        metadata: { path: absolute, lines: lines.length },
      };
    },
  });
}

export const readTool = createReadTool({ hashline: false });
