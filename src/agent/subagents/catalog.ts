// The subagents as the daemon catalog lists them: name, description, tags and a coarse origin (shipped
// or project). Only usable definitions are listed; building it reads files and nothing else.
import type { LoadedConfig } from "../../config/load.ts";
import { loadSubagentDefinitions } from "./definitions.ts";
import { definitionSources } from "./host.ts";

export function subagentCatalog(loaded: LoadedConfig): Record<string, unknown>[] {
  const followSymlinks = loaded.config.daemon?.follow_symlinks_for_configs ?? true;
  const { usable } = loadSubagentDefinitions(definitionSources(loaded, followSymlinks), []);
  return [...usable.values()].map((d) => ({ name: d.name, description: d.description, tags: d.tags, origin: d.origin }));
}
