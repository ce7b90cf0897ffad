// Facets: a pre-prompted mode (built-in `execute` and `plan`). The prompt comes from, in order: an
// explicit `facets.<name>.source` in the config, a file `.agent/facets/<name>.md`, the built-in text.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_FACETS } from "../../config/builtin-names.ts";
import type { AppConfig } from "../../config/schema.ts";
import { checkProjectFile } from "../../config/project-paths.ts";
import { BUILTIN_TOOL_TRAITS, planSafeTools } from "../../protocol/tool-traits.ts";
import { loadContextFile, type ContextWarnings } from "./context-file.ts";
import { parseFrontmatter } from "./frontmatter.ts";
import executePrompt from "./prompts/execute.txt" with { type: "text" };
import planPrompt from "./prompts/plan.txt" with { type: "text" };

const BUILTIN_PROMPTS: Record<(typeof BUILTIN_FACETS)[number], string> = { execute: executePrompt, plan: planPrompt };

/** Tools a read-only facet keeps (plan mode): those whose traits say they are safe there. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(planSafeTools(BUILTIN_TOOL_TRAITS));

export interface Facet {
  name: string;
  prompt: string;
  /** Where the prompt came from, for the catalog and error messages. */
  source: string;
  readOnly: boolean;
  /** Frontmatter `description`: one line for pickers and the catalog. */
  description: string | null;
  /** Frontmatter `model`: the model (key, optionally `name(level)`) this facet pins while it is active. */
  model: string | null;
  /** Frontmatter `tools`: the only tools offered in this facet (the engine's required tools stay). */
  tools: string[] | null;
  /** Frontmatter `policies`: rules the facet declares; the model reads them with the facet's prompt. */
  policies: string[];
  /** Effective colors for light and dark terminals: frontmatter `colors`, else a built-in default. */
  colors: FacetColors;
}

export interface FacetColors {
  light: string;
  dark: string;
}

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** Built-in facets have their own colors; any other facet gets a stable one of these by its name. */
const BUILTIN_COLORS: Record<string, FacetColors> = { execute: { light: "#1f6feb", dark: "#58a6ff" }, plan: { light: "#9a6700", dark: "#d29922" } };
const PALETTE: FacetColors[] = [
  { light: "#8250df", dark: "#bc8cff" },
  { light: "#1a7f37", dark: "#56d364" },
  { light: "#bf3989", dark: "#f778ba" },
  { light: "#0969da", dark: "#79c0ff" },
  { light: "#bc4c00", dark: "#ffa657" },
  { light: "#116329", dark: "#7ee787" },
];

export function defaultFacetColors(name: string): FacetColors {
  const builtin = BUILTIN_COLORS[name];
  if (builtin) return builtin;
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
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

/** A facet file: YAML frontmatter (description, model, tools, read_only, policies, colors) and the prompt as body. */
function fromFile(name: string, text: string, source: string, readOnly: boolean): Facet {
  const doc = parseFrontmatter(text);
  if (doc.error) throw new FacetError(`facet '${name}' (${source}): ${doc.error}`);
  const d = doc.data;
  const bad = (key: string, allowed: string) => new FacetError(`facet '${name}' (${source}): frontmatter '${key}' must be ${allowed}; found ${JSON.stringify(d[key])}`);
  for (const key of ["description", "model"] as const) if (d[key] !== undefined && d[key] !== null && typeof d[key] !== "string") throw bad(key, "a string");
  if (d.tools !== undefined && d.tools !== null && !(Array.isArray(d.tools) && d.tools.every((t) => typeof t === "string"))) throw bad("tools", "a list of tool names");
  if (d.read_only !== undefined && typeof d.read_only !== "boolean") throw bad("read_only", "true or false");
  if (d.policies !== undefined && d.policies !== null && !(Array.isArray(d.policies) && d.policies.every((x) => typeof x === "string" && x.trim() !== ""))) throw bad("policies", "a list of non-empty strings");
  const colors = d.colors as Record<string, unknown> | undefined | null;
  if (colors !== undefined && colors !== null) {
    const extra = typeof colors === "object" && !Array.isArray(colors) ? Object.keys(colors).filter((k) => k !== "light" && k !== "dark") : ["?"];
    if (extra.length > 0) throw bad("colors", "a map with `light` and/or `dark`");
    for (const key of ["light", "dark"] as const) {
      const v = colors[key];
      if (v !== undefined && !(typeof v === "string" && HEX_COLOR.test(v))) throw new FacetError(`facet '${name}' (${source}): frontmatter 'colors.${key}' must be a color as #RRGGBB; found ${JSON.stringify(v)}`);
    }
  }
  const fallback = defaultFacetColors(name);
  return {
    name,
    prompt: doc.body,
    source,
    readOnly: (d.read_only as boolean | undefined) ?? readOnly,
    description: (d.description as string | undefined) ?? null,
    model: (d.model as string | undefined) || null,
    tools: (d.tools as string[] | undefined) ?? null,
    policies: ((d.policies as string[] | undefined) ?? []).map((x) => x.trim()),
    colors: { light: (colors?.light as string | undefined) ?? fallback.light, dark: (colors?.dark as string | undefined) ?? fallback.dark },
  };
}

function builtin(name: string, prompt: string, source: string, readOnly: boolean): Facet {
  return { name, prompt, source, readOnly, description: null, model: null, tools: null, policies: [], colors: defaultFacetColors(name) };
}

/** A facet that is only a prompt (a subagent's system prompt is built from one). */
export function promptFacet(name: string, prompt: string, source: string): Facet {
  return builtin(name, prompt, source, false);
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
      return builtin(name, prompt, explicit, readOnly);
    }
    // The config check says the same when the file is loaded; this holds when the file changed since.
    const check = checkProjectFile(projectRoot, explicit, followSymlinks);
    if (!check.ok) throw new FacetError(`facets.${name}.source: '${explicit}' ${check.reason}`);
    const read = loadContextFile(check.absolute, followSymlinks, projectRoot);
    if (read === null || "problem" in read) throw new FacetError(`facets.${name}.source: cannot read '${explicit}' in the project${read ? `: ${read.problem}` : ""}`);
    return fromFile(name, read.text, explicit, readOnly);
  }
  const prompt = builtinPrompt(name);
  if (agentDir) {
    const file = join(agentDir, "facets", `${name}.md`);
    const read = existsSync(file) ? loadContextFile(file, followSymlinks, projectRoot) : null;
    if (read && "text" in read) return fromFile(name, read.text, file, readOnly);
    if (read) {
      const skipped = `skipped ${file}: ${read.problem}`;
      // Without a built-in of that name the facet cannot start, and the error says why.
      if (!prompt) throw new FacetError(`facet '${name}': ${skipped}`);
      warnings.push(skipped);
    }
  }
  if (prompt) return builtin(name, prompt, `agent://facets/${name}`, readOnly);
  throw new FacetError(`unknown facet '${name}'; available: ${facetNames(config, agentDir).join(", ")}`);
}
