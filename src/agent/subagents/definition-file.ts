// One subagent definition file (`.agent/subagents/<name>.md`, or an explicit `subagents.<name>.source`):
// YAML frontmatter (description, model, tools, tags, max_tool_turns) and a body that is the prompt.
// Every problem is reported as `file:line: what is wrong, and what is allowed`.
import { isMap, isScalar, LineCounter, parseDocument, type Pair } from "yaml";
import { didYouMean } from "../../util/did-you-mean.ts";
import type { SubagentModel } from "./definitions.ts";

export const DEFINITION_KEYS = ["description", "model", "tools", "tags", "max_tool_turns"] as const;
export const MODEL_CLASSES = ["full", "mini", "nano"] as const;
/** Upper bound of a definition's `max_tool_turns`. */
export const MAX_SUBAGENT_TOOL_TURNS = 1000;

export interface DefinitionFields {
  description: string;
  model: SubagentModel;
  tools: string[] | null;
  tags: string[];
  maxToolTurns: number | null;
  prompt: string;
}

/** What the fields are checked against: the configured models and the tool names a subagent may get. */
export interface DefinitionChecks {
  /** Configured model keys with their effort levels (null: the model takes no `(level)`). */
  models: ReadonlyMap<string, readonly string[] | null>;
  /** Built-in tool names a definition may list (tool-server tools are any `mcp__<server>__<tool>`). */
  toolNames: readonly string[];
  /** Tools no subagent gets, with the reason shown when one is listed. */
  forbiddenTools: ReadonlyMap<string, string>;
}

export class DefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DefinitionError";
  }
}

const OPENING = /^---\r?\n/;
const CLOSING = /\r?\n---[ \t]*(?:\r?\n|$)/;

/** Parses a definition file; throws DefinitionError naming `file:line`. */
export function parseDefinitionFile(text: string, file: string, checks: DefinitionChecks): DefinitionFields {
  const fail = (line: number, message: string): never => {
    throw new DefinitionError(`${file}:${line}: ${message}`);
  };
  if (!OPENING.test(text)) fail(1, "a subagent file starts with YAML frontmatter between '---' lines (at least `description: ...`), followed by the prompt");
  const start = text.indexOf("\n") + 1;
  const close = CLOSING.exec(text.slice(start - 1));
  if (!close) fail(1, "the frontmatter opened with '---' is never closed by a '---' line");
  const yamlText = text.slice(start, start - 1 + close!.index);
  const bodyOffset = start - 1 + close!.index + close![0].length;
  // Frontmatter line n is file line n + 1 (after the opening '---').
  const counter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: counter, prettyErrors: false });
  const lineAt = (offset: number | undefined) => (offset === undefined ? 1 : counter.linePos(offset).line + 1);
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    fail(lineAt(e.pos[0]), `the frontmatter is not valid YAML: ${e.message.split("\n")[0]}`);
  }
  const contents = doc.contents;
  if (contents !== null && !isMap(contents)) fail(2, "the frontmatter must be a YAML mapping of keys (description, model, tools, tags, max_tool_turns)");
  const pairs = new Map<string, Pair>();
  for (const pair of isMap(contents) ? contents.items : []) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const line = lineAt(isScalar(pair.key) ? pair.key.range?.[0] : undefined);
    if (!(DEFINITION_KEYS as readonly string[]).includes(key)) {
      fail(line, `unknown key '${key}'${didYouMean(key, DEFINITION_KEYS, "'")}; allowed: ${DEFINITION_KEYS.join(", ")}`);
    }
    pairs.set(key, pair);
  }
  const lineOf = (key: string) => {
    const pair = pairs.get(key)!;
    const node = pair.value as { range?: [number, number, number] } | null;
    return lineAt(node?.range?.[0] ?? (isScalar(pair.key) ? pair.key.range?.[0] : undefined));
  };
  const value = (key: string): unknown => (pairs.has(key) ? doc.get(key) : undefined);
  const plain = (key: string): unknown => {
    const v = value(key);
    return v && typeof v === "object" && "toJSON" in v ? (v as { toJSON(): unknown }).toJSON() : v;
  };

  const description = plain("description");
  if (description === undefined) fail(2, "`description` is required: one sentence saying when the model should delegate to this subagent");
  if (typeof description !== "string" || description.trim() === "") fail(lineOf("description"), "`description` must be a non-empty string");

  let model: SubagentModel = { kind: "inherit" };
  const modelValue = plain("model");
  if (modelValue !== undefined) {
    if (typeof modelValue !== "string" || modelValue.trim() === "") fail(lineOf("model"), "`model` must be a string: a model class, `inherit`, or a configured model key");
    model = parseModelField(modelValue as string, checks, (m) => fail(lineOf("model"), m));
  }

  let tools: string[] | null = null;
  const toolsValue = plain("tools");
  if (toolsValue !== undefined) {
    if (!Array.isArray(toolsValue) || toolsValue.some((t) => typeof t !== "string")) fail(lineOf("tools"), "`tools` must be a list of tool names");
    tools = toolsValue as string[];
    for (const name of tools) {
      const why = checks.forbiddenTools.get(name);
      if (why) fail(lineOf("tools"), `'${name}' cannot be given to a subagent: ${why}`);
      if (!name.startsWith("mcp__") && !checks.toolNames.includes(name)) {
        fail(lineOf("tools"), `unknown tool '${name}'${didYouMean(name, checks.toolNames, "'")}; allowed: ${checks.toolNames.join(", ")}, or mcp__<server>__<tool>`);
      }
    }
  }

  const tagsValue = plain("tags") ?? [];
  if (!Array.isArray(tagsValue) || tagsValue.some((t) => typeof t !== "string" || t.trim() === "")) fail(lineOf("tags"), "`tags` must be a list of non-empty strings");

  let maxToolTurns: number | null = null;
  const turns = plain("max_tool_turns");
  if (turns !== undefined) {
    if (typeof turns !== "number" || !Number.isInteger(turns) || turns < 1 || turns > MAX_SUBAGENT_TOOL_TURNS) {
      fail(lineOf("max_tool_turns"), `\`max_tool_turns\` must be an integer from 1 to ${MAX_SUBAGENT_TOOL_TURNS} (got ${JSON.stringify(turns)})`);
    }
    maxToolTurns = turns as number;
  }

  const prompt = text.slice(bodyOffset).trim();
  if (prompt === "") fail(text.slice(0, bodyOffset).split("\n").length, "the prompt is empty: write the subagent's instructions below the frontmatter");
  return { description: (description as string).trim(), model, tools, tags: (tagsValue as string[]).map((t) => t.trim()), maxToolTurns, prompt };
}

/** `full` / `mini` / `nano`, `inherit` (the parent's model), or a configured model key with an optional `(level)`. */
export function parseModelField(text: string, checks: Pick<DefinitionChecks, "models">, fail: (message: string) => never): SubagentModel {
  const ref = text.trim();
  if (ref === "inherit") return { kind: "inherit" };
  if ((MODEL_CLASSES as readonly string[]).includes(ref)) return { kind: "class", class: ref as (typeof MODEL_CLASSES)[number] };
  const m = /^(.*)\(([^()]*)\)$/.exec(ref);
  const name = m ? m[1]!.trim() : ref;
  const keys = [...checks.models.keys()];
  if (!checks.models.has(name)) {
    const known = keys.length > 0 ? `, or a configured model: ${keys.join(", ")}` : "";
    return fail(`model '${name}' is not configured${didYouMean(name, keys, "'")}; allowed: ${MODEL_CLASSES.join(", ")}, inherit${known}`);
  }
  if (m) {
    const level = m[2]!.trim();
    const levels = checks.models.get(name);
    if (!levels) return fail(`model '${name}' takes no effort level; write just '${name}'`);
    if (!levels.includes(level)) return fail(`'${level}' is not an effort level of model '${name}'; allowed: ${levels.join(", ")}`);
  }
  return { kind: "pin", ref };
}
