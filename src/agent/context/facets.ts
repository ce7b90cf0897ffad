// Facets: a pre-prompted mode (built-in `execute` and `plan`). The prompt comes from, in order: an
// explicit `facets.<name>.source` in the config, a file `.agent/facets/<name>.md`, the built-in text.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_FACETS } from "../../config/builtin-names.ts";
import type { AppConfig } from "../../config/schema.ts";
import { readContextFile, type ContextWarnings } from "./context-file.ts";
import executePrompt from "./prompts/execute.txt" with { type: "text" };
import planPrompt from "./prompts/plan.txt" with { type: "text" };

const BUILTIN_PROMPTS: Record<(typeof BUILTIN_FACETS)[number], string> = { execute: executePrompt, plan: planPrompt };

/** Tools a read-only facet keeps (plan mode). */
export const READ_ONLY_TOOLS = new Set(["read", "glob", "grep", "web_fetch", "web_search", "progress_update", "exit_tool", "tool_search"]);

export interface Facet {
  name: string;
  prompt: string;
  /** Where the prompt came from, for the catalog and error messages. */
  source: string;
  readOnly: boolean;
}

export class FacetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FacetError";
  }
}

function builtinPrompt(name: string): string | undefined {
  return (BUILTIN_PROMPTS as Record<string, string>)[name];
}

/** Strips YAML frontmatter (`---` ... `---`) from a facet file; the body is the prompt. */
function body(text: string): string {
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(text);
  return (m ? text.slice(m[0].length) : text).trim();
}

export function facetNames(config: AppConfig, agentDir: string | undefined): string[] {
  const names = new Set<string>([...BUILTIN_FACETS, ...Object.keys(config.facets ?? {})]);
  if (agentDir) {
    try {
      for (const f of new Bun.Glob("*.md").scanSync({ cwd: join(agentDir, "facets") })) names.add(f.slice(0, -3));
    } catch {
      // No facets directory.
    }
  }
  return [...names].sort();
}

export function resolveFacet(name: string, config: AppConfig, projectRoot: string, agentDir: string | undefined, followSymlinks: boolean, warnings: ContextWarnings): Facet {
  const readOnly = name === "plan";
  const explicit = config.facets?.[name]?.source;
  if (explicit) {
    if (explicit.startsWith("agent://")) {
      const ref = explicit.slice("agent://".length);
      const prompt = ref.startsWith("facets/") ? builtinPrompt(ref.slice("facets/".length)) : undefined;
      if (!prompt) throw new FacetError(`facets.${name}.source: '${explicit}' is not a shipped facet; allowed: ${BUILTIN_FACETS.map((f) => `agent://facets/${f}`).join(", ")}`);
      return { name, prompt, source: explicit, readOnly };
    }
    const text = readContextFile(join(projectRoot, explicit), followSymlinks, warnings);
    if (text === null) throw new FacetError(`facets.${name}.source: cannot read '${explicit}' in the project`);
    return { name, prompt: body(text), source: explicit, readOnly };
  }
  if (agentDir) {
    const file = join(agentDir, "facets", `${name}.md`);
    if (existsSync(file)) {
      const text = readContextFile(file, followSymlinks, warnings);
      if (text !== null) return { name, prompt: body(text), source: file, readOnly };
    }
  }
  const prompt = builtinPrompt(name);
  if (prompt) return { name, prompt, source: `agent://facets/${name}`, readOnly };
  throw new FacetError(`unknown facet '${name}'; available: ${facetNames(config, agentDir).join(", ")}`);
}
