// Turns a server's tools into engine tools named `mcp__<server>__<tool>`, and a call's result into the
// engine's ToolResult.
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Kind, type TSchema } from "@sinclair/typebox";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { formatBytes } from "../tools/file-content.ts";
import { MAX_IMAGE_BASE64, toolError, type ImageMediaType, type Tool, type ToolContext, type ToolImage, type ToolResult } from "../tools/tool.ts";

/** Provider APIs accept tool names of letters, digits, `_` and `-`, at most 64 characters. */
const MAX_TOOL_NAME = 64;
const VISION_TYPES = new Set<string>(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** The text a result carries by default: the shell tool's cap (src/tools/shell-output.ts). */
export const DEFAULT_MAX_OUTPUT_BYTES = 30 * 1024;
/** Of the cap, how much comes from the start of the text; the rest is its end. */
const HEAD_SHARE = 1 / 3;
/** Images are counted apart from text: at most this many per result, each at most MAX_IMAGE_BASE64. */
export const MAX_IMAGES = 8;

/** How results are limited: the text cap, and where the whole text of a capped result is kept. */
export interface OutputLimits {
  maxOutputBytes: number;
  /** Directory for whole results (created on first use). */
  outputDir: string;
}

/** `mcp__<server>__<tool>`, with characters providers refuse replaced and long names shortened stably. */
export function engineToolName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

/** Calls one tool on the server; the connection handles sessions, timeouts and reconnects. */
export type McpCall = (tool: string, args: Record<string, unknown>, signal: AbortSignal, onProgress?: ToolContext["onProgress"]) => Promise<CallToolResult>;

const validators = new AjvJsonSchemaValidator();

/**
 * The server's JSON schema, passed through to the model unchanged. The engine validates tool input with
 * TypeBox, which cannot read a plain JSON schema, so the schema is marked as TypeBox `Any` (a symbol key:
 * invisible in the JSON sent to the model) and the tool validates with ajv itself.
 */
function passThroughSchema(schema: McpTool["inputSchema"]): TSchema {
  return { ...schema, [Kind]: "Any" } as unknown as TSchema;
}

export function toEngineTool(server: string, tool: McpTool, call: McpCall, limits?: OutputLimits): Tool {
  const name = engineToolName(server, tool.name);
  let validate: JsonSchemaValidator<unknown> | null | undefined;
  return {
    name,
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? `The \`${tool.name}\` tool of the \`${server}\` tool server.`,
    inputSchema: passThroughSchema(tool.inputSchema),
    async run(input, ctx, signal) {
      if (validate === undefined) validate = compile(tool.inputSchema);
      const checked = validate?.(input);
      if (checked && !checked.valid) {
        // ajv names the input "data" ("data/b must be number"): say it in the model's terms.
        const problems = checked.errorMessage.replace(/(^|, )data\//g, "$1").replace(/(^|, )data /g, "$1the input ");
        return toolError(`Invalid arguments for \`${name}\`: ${problems}. Fix the arguments and call \`${name}\` again.`);
      }
      const result = await call(tool.name, (input ?? {}) as Record<string, unknown>, signal, ctx.onProgress?.bind(ctx));
      return toToolResult(result, ctx, { server, tool: tool.name }, limits);
    },
  };
}

/** A schema ajv cannot compile is left to the server to enforce. */
function compile(schema: McpTool["inputSchema"]): JsonSchemaValidator<unknown> | null {
  try {
    return validators.getValidator(schema as JsonSchemaType);
  } catch {
    return null;
  }
}

export function toToolResult(
  result: CallToolResult,
  ctx: Pick<ToolContext, "supportsVision" | "callId">,
  metadata: Record<string, unknown>,
  limits?: OutputLimits,
): ToolResult {
  const texts: string[] = [];
  const images: ToolImage[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        texts.push(block.text);
        break;
      case "image": {
        const bytes = Math.floor((block.data.length * 3) / 4);
        if (!ctx.supportsVision || !VISION_TYPES.has(block.mimeType)) {
          texts.push(`[image (${block.mimeType}) not shown: ${ctx.supportsVision ? "unsupported image type" : "this model cannot see images"}]`);
        } else if (images.length >= MAX_IMAGES) {
          texts.push(`[image (${block.mimeType}) not shown: a result shows at most ${MAX_IMAGES} images]`);
        } else if (block.data.length > MAX_IMAGE_BASE64) {
          texts.push(`[image (${block.mimeType}, ${formatBytes(bytes)}) not shown: over the ${formatBytes(MAX_IMAGE_BASE64)} of base64 an image may have]`);
        } else images.push({ mediaType: block.mimeType as ImageMediaType, data: block.data });
        break;
      }
      case "audio":
        texts.push(`[audio (${block.mimeType}) not shown]`);
        break;
      case "resource_link":
        texts.push(`[resource: ${block.name} <${block.uri}>${block.description ? ` — ${block.description}` : ""}]`);
        break;
      case "resource": {
        const r = block.resource;
        if ("text" in r && typeof r.text === "string") texts.push(`[resource <${r.uri}>]\n${r.text}`);
        else texts.push(`[binary resource <${r.uri}>${r.mimeType ? ` (${r.mimeType})` : ""} not shown]`);
        break;
      }
    }
  }
  const structured = result.structuredContent;
  if (structured !== undefined && !alreadyInText(structured, texts.join("\n"))) {
    texts.push(JSON.stringify(structured, null, 2));
  }
  let output = texts.join("\n");
  if (limits) output = capOutput(output, limits, metadata, ctx.callId);
  const out: ToolResult = { output: output === "" && result.isError ? "The tool reported an error without a message." : output, metadata };
  if (result.isError) out.isError = true;
  if (images.length > 0) out.images = images;
  return out;
}

/**
 * Servers usually send structured content twice: as JSON text, or as readable text holding the same values
 * (a file's text and `{content: text}`). The model needs it once; the JSON is added only when some value of
 * the structure is missing from the text.
 */
function alreadyInText(value: unknown, text: string): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === "object") return Object.values(value).every((v) => alreadyInText(v, text));
  return text.includes(String(value));
}

/**
 * A text over the cap keeps its head and tail (as the shell tool does); the whole text goes to a file the
 * model can page through with `read` (offset/limit) or search with `grep`, named in the note.
 */
function capOutput(text: string, limits: OutputLimits, metadata: Record<string, unknown>, callId?: string): string {
  const bytes = Buffer.from(text, "utf8");
  const max = limits.maxOutputBytes;
  if (bytes.length <= max) return text;
  const file = join(limits.outputDir, `${String(metadata.server)}-${(callId ?? randomUUID()).replace(/[^A-Za-z0-9_-]/g, "_")}.txt`);
  let kept: string;
  try {
    mkdirSync(limits.outputDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, bytes, { mode: 0o600 });
    kept = `The whole result is in ${file}: read it with \`read\` (offset and limit page through it) or search it with \`grep\`.`;
  } catch (error) {
    kept = `The whole result could not be kept (${error instanceof Error ? error.message : String(error)}); ask for less, e.g. a narrower query.`;
  }
  const headBytes = Math.floor(max * HEAD_SHARE);
  const head = new TextDecoder().decode(bytes.subarray(0, charStart(bytes, headBytes)));
  const tailFrom = charStart(bytes, bytes.length - (max - headBytes));
  const tail = new TextDecoder().decode(bytes.subarray(tailFrom));
  const omitted = tailFrom - Buffer.byteLength(head);
  metadata.truncated = { totalBytes: bytes.length, file };
  return (
    `${head}\n[... ${formatBytes(omitted)} omitted: the result was ${formatBytes(bytes.length)}, capped at ${formatBytes(max)} ` +
    `(first ${formatBytes(headBytes)} and last ${formatBytes(max - headBytes)} shown). ${kept} ...]\n${tail}`
  );
}

/** Moves `at` back to the first byte of the UTF-8 character it falls inside, so a cut never splits one. */
function charStart(bytes: Uint8Array, at: number): number {
  let i = Math.max(0, Math.min(at, bytes.length));
  while (i > 0 && ((bytes[i] ?? 0) & 0xc0) === 0x80) i--;
  return i;
}
