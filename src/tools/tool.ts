// The contract between the engine and a built-in tool: a name, a description the model reads, a TypeBox
// input schema, an optional lock key for exclusive runs, and `run`.
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { FileCatalog } from "./file-catalog.ts";

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface ToolImage {
  mediaType: ImageMediaType;
  /** Base64 of the image bytes. */
  data: string;
}

/**
 * The largest image a tool result carries, measured as base64 as the vendors measure it: Anthropic refuses
 * an image over 5 MiB of base64 ("image exceeds 5 MB maximum"), the strictest of them. Images are not
 * resized: a larger one is described in text instead.
 */
export const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;

/** Length of the base64 text of `bytes` bytes. */
export const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;

export interface ToolResult {
  /** Text the model reads. On error, it says what went wrong and what to do instead. */
  output: string;
  isError?: boolean;
  /** Only ever set when the context says the model supports vision. */
  images?: ToolImage[];
  /** Structured facts for clients (paths touched, counts); never sent to the model. */
  metadata?: Record<string, unknown>;
}

export interface ToolClock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface ToolContext {
  projectRoot: string;
  /** Relative tool paths resolve against this. */
  cwd: string;
  clock: ToolClock;
  fileCatalog: FileCatalog;
  /** Called with the absolute path of every file a tool created, changed or deleted. */
  onFileMutated(path: string): void;
  supportsVision: boolean;
  /** `permissions.secret_files`: such files are left out of glob and grep results. */
  isSecretFile?(absolute: string): boolean;
  /** The id of the model's tool call being run (set by the engine for each call). */
  callId?: string;
  /** Reports the call's progress (shown on its line); set by the engine for each call. */
  onProgress?(update: ToolProgress): void;
}

/** How far a running call is: `progress` of `total` (when known), with an optional message. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface Tool<S extends TSchema = TSchema> {
  name: string;
  description: string;
  inputSchema: S;
  /** A lock key: calls with the same key never run at the same time (e.g. a file path, or "shell"). */
  exclusive?(input: Static<S>, ctx: ToolContext): string | undefined;
  /**
   * The permission check a call goes through when it is another tool's under this name: `apply_patch`
   * is checked as the `edit` patch it is, so `edit(...)` rules govern it. Default: the tool's own name.
   */
  permissionAs?(input: Static<S>): { tool: string; input: Record<string, unknown> };
  run(input: Static<S>, ctx: ToolContext, signal: AbortSignal): Promise<ToolResult>;
}

/** Keeps the input type of `run` tied to the schema. */
export function defineTool<S extends TSchema>(tool: Tool<S>): Tool<S> {
  return tool;
}

export function toolError(output: string, metadata?: Record<string, unknown>): ToolResult {
  return metadata ? { output, isError: true, metadata } : { output, isError: true };
}

/** The plain JSON Schema of a tool's input, as sent to the model. */
export function toolJsonSchema(tool: Tool): Record<string, unknown> {
  return JSON.parse(JSON.stringify(tool.inputSchema)) as Record<string, unknown>;
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Lists what is wrong with `input`, one line per problem, in words the model can act on. */
export function inputProblems(schema: TSchema, input: unknown): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const error of Value.Errors(schema, input)) {
    const where = error.path === "" ? "the input" : `\`${error.path.slice(1).replaceAll("/", ".")}\``;
    const line = `${where}: ${error.message} (got ${describeValue(error.value)})`;
    if (!seen.has(where)) problems.push(line);
    seen.add(where);
    if (problems.length >= 8) break;
  }
  return problems;
}

/** Validates the input, runs the tool, and turns a thrown error into an error result. */
export async function runTool(tool: Tool, input: unknown, ctx: ToolContext, signal: AbortSignal): Promise<ToolResult> {
  const problems = inputProblems(tool.inputSchema, input);
  if (problems.length > 0) {
    const props = (tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {};
    const required = (tool.inputSchema as { required?: string[] }).required ?? [];
    return toolError(
      `Invalid arguments for \`${tool.name}\`:\n${problems.map((p) => `- ${p}`).join("\n")}\n` +
        `Expected fields: ${Object.keys(props)
          .map((k) => (required.includes(k) ? k : `${k}?`))
          .join(", ")}. Fix the arguments and call \`${tool.name}\` again.`,
    );
  }
  if (signal.aborted) return toolError(`\`${tool.name}\` was cancelled before it started.`);
  try {
    return await tool.run(input as Static<typeof tool.inputSchema>, ctx, signal);
  } catch (error) {
    if (signal.aborted) return toolError(`\`${tool.name}\` was cancelled.`);
    const message = error instanceof Error ? error.message : String(error);
    return toolError(`\`${tool.name}\` failed: ${message}`);
  }
}
