// `tui.theme` as the user's config says it, read before the first frame. The full config loader costs
// tens of milliseconds of module loading (and may run `$(command)` substitutions), so the files are read
// directly: the global layer, then the project layer over it (`null` erases), as the loader merges them.
// A value with a `$` reference goes through the full loader, which substitutes it. Config problems are
// not reported here: the daemon reports them with every file and line.
import { readFileSync } from "node:fs";
import { findConfigIn, findProject, globalConfigDir, type Env } from "../../src/config/files.ts";

const UNSET = Symbol("unset");
/** TOML layers are rare; they go through the full loader rather than a second TOML parser here. */
const TOML = Symbol("toml");

/** The layer's `tui.theme`: a value, null (erased), or UNSET when the layer does not set it (or cannot be read). */
function themeIn(path: string): unknown {
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
  if (!isMap(data.tui) || !("theme" in data.tui)) return UNSET;
  return data.tui.theme;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export async function configuredTheme(cwd: string, env: Env): Promise<unknown> {
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
    const layer = themeIn(path);
    if (layer === TOML || (typeof layer === "string" && layer.includes("$"))) return loadedTheme(cwd, env);
    if (layer !== UNSET) value = layer;
  }
  return value;
}

async function loadedTheme(cwd: string, env: Env): Promise<unknown> {
  const { loadConfig } = await import("../../src/config/load.ts");
  return loadConfig({ cwd, env }).config.tui?.theme ?? null;
}
