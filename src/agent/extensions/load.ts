// Loads one approved extension: imports its entry (the first time any of its code runs), calls the
// factory with `plugins.<name>` and the api, and checks what it returns against the approved
// capabilities. Tools are renamed `ext__<extension>__<tool>` (no clash with built-ins or tool servers)
// and wrapped so a throwing tool is reported; reminders become <system-reminder> texts.
import { pathToFileURL } from "node:url";
import { Kind, Type, type TSchema } from "@sinclair/typebox";
import type { Tool, ToolResult } from "../../tools/tool.ts";
import type { ExtensionCapability, ReadManifest } from "./manifest.ts";
import type { ExtensionApi, ExtensionReminderState } from "./types.ts";

export const EXTENSION_TOOL_PREFIX = "ext__";
/** Providers accept tool names of at most 64 characters. */
const MAX_TOOL_NAME = 64;
const TOOL_NAME = /^[a-z][a-z0-9_-]*$/;
const REMINDER_NAME = /^[a-z][a-z0-9_]*$/;
/** A factory that does not settle by then fails the load (it must not hold the session's start). */
export const FACTORY_TIMEOUT_MS = 10_000;
/** A reminder's text is cut here: an extension must not flood the context. */
const MAX_REMINDER_CHARS = 4000;

export class ExtensionLoadError extends Error {}

export interface LoadedReminder {
  /** `ext__<extension>__<reminder>` */
  name: string;
  text(state: ExtensionReminderState): string | null;
}

export interface LoadedParts {
  tools: Tool[];
  reminders: LoadedReminder[];
}

export interface LoadOptions {
  config: unknown;
  api: ExtensionApi;
  /** A tool or reminder of the extension failed while the session runs (notice + session log). */
  report(message: string): void;
}

export function extensionToolName(extension: string, tool: string): string {
  return `${EXTENSION_TOOL_PREFIX}${extension}__${tool}`;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "function") return "a function";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function loadExtension(read: ReadManifest, opts: LoadOptions): Promise<LoadedParts> {
  const { manifest } = read;
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(read.entry).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ExtensionLoadError(`importing ${read.entry} failed: ${message(error)}`);
  }
  const factory = module.default;
  if (typeof factory !== "function") throw new ExtensionLoadError(`${read.entry} must export a default function (got ${describe(factory)})`);
  let provides: unknown;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ExtensionLoadError(`its default function did not finish within ${FACTORY_TIMEOUT_MS / 1000} s`)), FACTORY_TIMEOUT_MS);
    });
    provides = await Promise.race([Promise.resolve().then(() => factory({ config: opts.config, api: opts.api })), timeout]);
  } catch (error) {
    throw error instanceof ExtensionLoadError ? error : new ExtensionLoadError(`its default function threw: ${message(error)}`);
  } finally {
    clearTimeout(timer);
  }
  if (typeof provides !== "object" || provides === null || Array.isArray(provides)) {
    throw new ExtensionLoadError(`its default function must return an object with tools and/or reminders (got ${describe(provides)})`);
  }
  const parts = provides as Record<string, unknown>;
  const unknown = Object.keys(parts).filter((k) => k !== "tools" && k !== "reminders");
  if (unknown.length > 0) throw new ExtensionLoadError(`it returned the unknown field '${unknown[0]}'; allowed: tools, reminders`);
  const list = (field: string, capability: ExtensionCapability): unknown[] => {
    const value = parts[field];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new ExtensionLoadError(`'${field}' must be a list (got ${describe(value)})`);
    if (value.length > 0 && !manifest.capabilities.includes(capability)) {
      throw new ExtensionLoadError(`it returned ${field} but its manifest does not declare the '${capability}' capability (approved: ${manifest.capabilities.join(", ")})`);
    }
    return value;
  };
  const tools = list("tools", "tools").map((t, i) => checkTool(manifest.name, t, i, opts.report));
  const reminders = list("reminders", "system_reminders").map((r, i) => checkReminder(manifest.name, r, i, opts.report));
  const names = [...tools, ...reminders].map((x) => x.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new ExtensionLoadError(`it returned two tools or reminders named '${twice.slice(extensionToolName(manifest.name, "").length)}'`);
  return { tools, reminders };
}

function checkTool(extension: string, value: unknown, index: number, report: (message: string) => void): Tool {
  const where = `tools[${index}]`;
  if (typeof value !== "object" || value === null) throw new ExtensionLoadError(`${where} must be a tool object (got ${describe(value)})`);
  const tool = value as Partial<Tool>;
  if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
    throw new ExtensionLoadError(`${where}.name is ${describe(tool.name)}; it must be lowercase letters, digits, _ and -, starting with a letter`);
  }
  const name = extensionToolName(extension, tool.name);
  const at = `tool '${tool.name}'`;
  if (name.length > MAX_TOOL_NAME) throw new ExtensionLoadError(`${at}: its full name ${name} is longer than ${MAX_TOOL_NAME} characters; shorten the tool or extension name`);
  if (typeof tool.description !== "string" || tool.description.trim() === "") throw new ExtensionLoadError(`${at}: description must be a non-empty string (got ${describe(tool.description)})`);
  const schema = tool.inputSchema as (TSchema & { type?: unknown }) | undefined;
  if (typeof schema !== "object" || schema === null || !(Kind in schema) || schema.type !== "object") {
    throw new ExtensionLoadError(`${at}: inputSchema must be an object schema built with api.Type.Object(...) (got ${describe(schema)})`);
  }
  if (typeof tool.run !== "function") throw new ExtensionLoadError(`${at}: run must be a function (got ${describe(tool.run)})`);
  if (tool.exclusive !== undefined && typeof tool.exclusive !== "function") throw new ExtensionLoadError(`${at}: exclusive must be a function when set (got ${describe(tool.exclusive)})`);
  const run = tool.run.bind(tool);
  const exclusive = tool.exclusive?.bind(tool);
  return {
    name,
    description: tool.description,
    inputSchema: schema,
    ...(exclusive
      ? {
          exclusive: (input, ctx) => {
            try {
              const key = exclusive(input, ctx);
              // Keys are the extension's own: its tools may share one, nobody else's can collide with it.
              return typeof key === "string" ? `${EXTENSION_TOOL_PREFIX}${extension}:${key}` : undefined;
            } catch {
              // A broken lock key must not break the batch: the call then runs without a lock.
              return undefined;
            }
          },
        }
      : {}),
    async run(input, ctx, signal) {
      let result: unknown;
      try {
        result = await run(input, ctx, signal);
      } catch (error) {
        if (!signal.aborted) report(`extension tool ${name} failed: ${message(error)}`);
        throw error;
      }
      return toolResult(name, result, report);
    },
  };
}

/** A string is taken as the output; anything else but a ToolResult is the extension's error. */
function toolResult(name: string, value: unknown, report: (message: string) => void): ToolResult {
  if (typeof value === "string") return { output: value };
  const r = value as Partial<ToolResult> | null;
  if (r && typeof r === "object" && typeof r.output === "string") {
    return { output: r.output, ...(r.isError ? { isError: true } : {}), ...(r.metadata && typeof r.metadata === "object" ? { metadata: r.metadata } : {}) };
  }
  const problem = `extension tool ${name} returned ${describe(value)} instead of { output: string }`;
  report(problem);
  return { output: `\`${name}\` failed: it returned no output (an error in the extension). Do not retry this call.`, isError: true };
}

function checkReminder(extension: string, value: unknown, index: number, report: (message: string) => void): LoadedReminder {
  const where = `reminders[${index}]`;
  const r = value as { name?: unknown; text?: unknown } | null;
  if (typeof r !== "object" || r === null) throw new ExtensionLoadError(`${where} must be a reminder object with name and text (got ${describe(value)})`);
  if (typeof r.name !== "string" || !REMINDER_NAME.test(r.name)) throw new ExtensionLoadError(`${where}.name is ${describe(r.name)}; it must be lowercase letters, digits and _, starting with a letter`);
  if (typeof r.text !== "function") throw new ExtensionLoadError(`reminder '${r.name}': text must be a function returning a string or null (got ${describe(r.text)})`);
  const name = extensionToolName(extension, r.name);
  const text = r.text.bind(r) as (state: ExtensionReminderState) => unknown;
  let broken = false;
  return {
    name,
    text(state) {
      // A reminder that threw once is off for the rest of the session (one report, not one per call).
      if (broken) return null;
      let out: unknown;
      try {
        out = text(state);
      } catch (error) {
        broken = true;
        report(`extension reminder ${name} failed and is off for this session: ${message(error)}`);
        return null;
      }
      if (out === null || out === undefined || out === "") return null;
      if (typeof out !== "string") {
        broken = true;
        report(`extension reminder ${name} returned ${describe(out)} instead of a string; it is off for this session`);
        return null;
      }
      return out.length > MAX_REMINDER_CHARS ? `${out.slice(0, MAX_REMINDER_CHARS)}\n[cut at ${MAX_REMINDER_CHARS} characters]` : out;
    },
  };
}

/** The api object handed to the factory. */
export function extensionApi(read: ReadManifest, projectRoot: string, log: (message: string) => void): ExtensionApi {
  return { Type, log, projectRoot, dir: read.dir, name: read.manifest.name, version: read.manifest.version };
}
