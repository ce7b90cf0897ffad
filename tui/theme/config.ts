// `tui.theme` and `tui.keys` as the user's config says them, read before the first frame. The full config
// loader costs tens of milliseconds of module loading (and may run `$(command)` substitutions), so the files
// are read directly: the global layer, then the project layer over it (`null` erases), as the loader merges
// them. A value with a `$` reference goes through the full loader, which substitutes it. Config problems
// are not reported here: the daemon reports them with every file and line.
import { readFileSync } from "node:fs";
import { findConfigIn, findProject, globalConfigDir, type Env } from "../../src/config/files.ts";

const UNSET = Symbol("unset");
/** TOML layers are rare; they go through the full loader rather than a second TOML parser here. */
const TOML = Symbol("toml");

/** The layer's `tui.<field>`: a value, null (erased), or UNSET when the layer does not set it (or cannot be read). */
function tuiFieldIn(path: string, field: "theme" | "keys"): unknown {
  if (path.endsWith(".toml")) return TOML;
  let data: unknown;
  try {
    const text = readFileSync(path, "utf8");
    data = path.endsWith(".json") ? JSON.parse(text) : Bun.YAML.parse(text);
  } catch {
    return UNSET;
  }
  if (!isMap(data) || !("tui" in data)) return UNSET;
  if (data.tui === null) return null;
  if (!isMap(data.tui) || !(field in data.tui)) return UNSET;
  return data.tui[field];
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function configuredTheme(cwd: string, env: Env): Promise<unknown> {
  return configuredTuiField(cwd, env, "theme");
}

/** `tui.<field>` of the merged layers; a mapping (`tui.keys`) is merged key by key, as the loader merges. */
export async function configuredTuiField(cwd: string, env: Env, field: "theme" | "keys"): Promise<unknown> {
  const paths: string[] = [];
  const global = findConfigIn(globalConfigDir(env));
  if (global.kind === "one") paths.push(global.path);
  const project = findProject(cwd, env);
  if (project.agentDir) {
    const found = findConfigIn(project.agentDir);
    if (found.kind === "one") paths.push(found.path);
  }
  let value: unknown = null;
  for (const path of paths) {
    const layer = tuiFieldIn(path, field);
    if (layer === TOML || (layer !== UNSET && JSON.stringify(layer)?.includes("$"))) return loadedField(cwd, env, field);
    if (layer !== UNSET) value = isMap(value) && isMap(layer) ? { ...value, ...layer } : layer;
  }
  return value;
}

async function loadedField(cwd: string, env: Env, field: "theme" | "keys"): Promise<unknown> {
  const { loadConfig } = await import("../../src/config/load.ts");
  return loadConfig({ cwd, env }).config.tui?.[field] ?? null;
}
