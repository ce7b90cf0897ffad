// Project variables: `.agent/variables.yaml` (or `.yml` / `.json`), a flat map of names to strings,
// numbers or booleans. They are listed to the model, and `{{name}}` in AGENTS.md files and facet prompts
// is replaced by the value (an unknown name is left as written).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { projectOfAgentDir, readContextFile, type ContextWarnings } from "./context-file.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

export function loadVariables(agentDir: string | undefined, followSymlinks: boolean, warnings: ContextWarnings): Record<string, string> {
  if (!agentDir) return {};
  const file = ["variables.yaml", "variables.yml", "variables.json"].map((f) => join(agentDir, f)).find((f) => existsSync(f));
  if (!file) return {};
  const text = readContextFile(file, followSymlinks, projectOfAgentDir(agentDir), warnings);
  if (text === null) return {};
  let data: unknown;
  try {
    data = file.endsWith(".json") ? JSON.parse(text) : Bun.YAML.parse(text);
  } catch (error) {
    warnings.push(`skipped ${file}: ${(error as Error).message}`);
    return {};
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data)) {
    warnings.push(`skipped ${file}: expected a mapping of variable names to values`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(data as Record<string, unknown>)) {
    if (!NAME.test(name)) warnings.push(`${file}: skipped variable '${name}': names are letters, digits, '_', '.', '-' (starting with a letter or '_')`);
    else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[name] = String(value);
    else warnings.push(`${file}: skipped variable '${name}': the value must be a string, number or boolean`);
  }
  return out;
}

export function substituteVariables(text: string, vars: Record<string, string>): string {
  return text.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g, (whole, name: string) => (Object.hasOwn(vars, name) ? vars[name]! : whole));
}
