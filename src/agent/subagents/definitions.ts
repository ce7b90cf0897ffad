// Subagent definitions: the built-ins (`explore`, `general`), files in `.agent/subagents/<name>.md`, and
// explicit `subagents.<name>.source` entries of the config. For one name the explicit source wins over a
// file, and a file over the built-in. A definition that cannot be used is kept with its error (file:line),
// so a request for it explains what is wrong instead of saying it does not exist.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_SUBAGENTS } from "../../config/builtin-names.ts";
import type { ModelClassName } from "../../config/models.ts";
import { checkProjectFile } from "../../config/project-paths.ts";
import { BUILTIN_TOOL_TRAITS, subagentForbiddenTools, toolNames, type ToolTraitTable } from "../../protocol/tool-traits.ts";
import type { AppConfig } from "../../config/schema.ts";
import { loadContextFile, projectOfAgentDir, readContextFile, type ContextWarnings } from "../context/context-file.ts";
import { DefinitionError, parseDefinitionFile, type DefinitionChecks, type DefinitionFields } from "./definition-file.ts";
import explorePrompt from "./prompts/explore.txt" with { type: "text" };
import generalPrompt from "./prompts/general.txt" with { type: "text" };

/** The model a subagent runs on: the parent session's, a class default, or a pinned model key. */
export type SubagentModel = { kind: "inherit" } | { kind: "class"; class: ModelClassName } | { kind: "pin"; ref: string };

export interface SubagentDefinition {
  name: string;
  description: string;
  prompt: string;
  model: SubagentModel;
  /** Tools it may use, from the session's tools; null: all of them (never `task`). */
  tools: string[] | null;
  tags: string[];
  maxToolTurns: number;
  /** Coarse origin for the catalog: shipped with agent, or written in the project. */
  origin: "builtin" | "project";
  /** `agent://subagents/<name>` or the file it was read from. */
  source: string;
}

export interface SubagentDefinitions {
  /** Usable definitions by name. */
  usable: Map<string, SubagentDefinition>;
  /** Names whose definition has a problem, with the message (file:line: ...). */
  broken: Map<string, string>;
}

export interface DefinitionSources {
  config: AppConfig;
  projectRoot: string;
  agentDir?: string;
  followSymlinks: boolean;
  /** Configured models with their effort levels (a definition may pin one, with a level). */
  models: ReadonlyMap<string, readonly string[] | null>;
}

/** Tool round-trips of one subagent run unless its definition sets `max_tool_turns`. */
export const DEFAULT_SUBAGENT_MAX_TOOL_TURNS = 30;

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * The tools a definition's `tools` may name, and those subagents never get with why (their traits say:
 * no nesting, no goal or plan of their own, no tool_search since a subagent sees its whole tool list).
 */
export function subagentToolNames(traits: ToolTraitTable = BUILTIN_TOOL_TRAITS): { toolNames: string[]; forbiddenTools: Map<string, string> } {
  const forbiddenTools = subagentForbiddenTools(traits);
  return { toolNames: toolNames(traits).filter((n) => !forbiddenTools.has(n)), forbiddenTools };
}

const BUILTINS: Record<(typeof BUILTIN_SUBAGENTS)[number], DefinitionFields> = {
  explore: {
    description:
      "Read-only researcher: searches and reads the project (and the web) to answer one question, and reports what it found with file paths. Changes nothing. Use it for broad searches that would fill your own context.",
    model: { kind: "class", class: "mini" },
    tools: ["read", "glob", "grep", "web_fetch", "web_search"],
    tags: ["read-only", "research"],
    maxToolTurns: null,
    prompt: explorePrompt.trim(),
  },
  general: {
    description:
      "General-purpose agent with your tools, for a self-contained multi-step task (research, edits, commands) that you can describe completely. It reports what it did.",
    model: { kind: "inherit" },
    tools: null,
    tags: ["general"],
    maxToolTurns: null,
    prompt: generalPrompt.trim(),
  },
};

function definitionChecks(src: DefinitionSources): DefinitionChecks {
  return { models: src.models, ...subagentToolNames() };
}

function complete(name: string, fields: DefinitionFields, origin: SubagentDefinition["origin"], source: string): SubagentDefinition {
  return { name, ...fields, maxToolTurns: fields.maxToolTurns ?? DEFAULT_SUBAGENT_MAX_TOOL_TURNS, origin, source };
}

/**
 * Definition files in `.agent/subagents/`, read now. A file that is skipped (a symlink out of the
 * project, or any symlink with follow_symlinks_for_configs off) is as if absent, with one warning.
 */
function definitionFiles(agentDir: string | undefined, followSymlinks: boolean, warnings: ContextWarnings): Map<string, string> {
  const dir = agentDir ? join(agentDir, "subagents") : null;
  const files = new Map<string, string>();
  if (!dir || !existsSync(dir)) return files;
  for (const entry of readdirSync(dir).sort()) {
    if (!entry.endsWith(".md")) continue;
    const text = readContextFile(join(dir, entry), followSymlinks, projectOfAgentDir(agentDir!), warnings);
    if (text !== null) files.set(entry.slice(0, -3), text);
  }
  return files;
}

export function loadSubagentDefinitions(src: DefinitionSources, warnings: ContextWarnings): SubagentDefinitions {
  const out: SubagentDefinitions = { usable: new Map(), broken: new Map() };
  const checks = definitionChecks(src);
  const explicit = (src.config.subagents ?? {}) as Record<string, { source: string }>;
  const files = definitionFiles(src.agentDir, src.followSymlinks, warnings);
  const names = new Set<string>([...BUILTIN_SUBAGENTS, ...Object.keys(explicit)]);
  for (const name of files.keys()) {
    if (NAME.test(name)) names.add(name);
    else warnings.push(`skipped subagent ${join(src.agentDir!, "subagents", `${name}.md`)}: the name '${name}' must be lowercase letters, digits, '-' or '_'`);
  }
  const fromText = (name: string, text: string, shownAs: string): SubagentDefinition => complete(name, parseDefinitionFile(text, shownAs, checks), "project", shownAs);
  for (const name of [...names].sort()) {
    try {
      const source = explicit[name]?.source;
      let def: SubagentDefinition;
      if (source?.startsWith("agent://")) {
        const builtin = source.startsWith("agent://subagents/") ? BUILTINS[source.slice("agent://subagents/".length) as keyof typeof BUILTINS] : undefined;
        if (!builtin) throw new DefinitionError(`subagents.${name}.source: '${source}' is not a shipped subagent; allowed: ${BUILTIN_SUBAGENTS.map((s) => `agent://subagents/${s}`).join(", ")}`);
        def = complete(name, builtin, "builtin", source);
      } else if (source) {
        const check = checkProjectFile(src.projectRoot, source, src.followSymlinks);
        if (!check.ok) throw new DefinitionError(`subagents.${name}.source: '${source}' ${check.reason}`);
        const read = loadContextFile(check.absolute, src.followSymlinks, src.projectRoot);
        if (read === null || "problem" in read) throw new DefinitionError(`subagents.${name}.source: '${source}' cannot be read${read ? `: ${read.problem}` : ""}`);
        def = fromText(name, read.text, source);
      } else if (files.has(name)) {
        def = fromText(name, files.get(name)!, join(src.agentDir!, "subagents", `${name}.md`));
      } else {
        def = complete(name, BUILTINS[name as keyof typeof BUILTINS], "builtin", `agent://subagents/${name}`);
      }
      out.usable.set(name, def);
    } catch (error) {
      if (!(error instanceof DefinitionError)) throw error;
      out.broken.set(name, error.message);
      warnings.push(`subagent '${name}' cannot be used: ${error.message}`);
    }
  }
  return out;
}
