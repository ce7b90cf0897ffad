// The subagents as the daemon catalog lists them: name, description, tags and a coarse origin (shipped
// or project). Only usable definitions are listed. A running session lists the definitions it read at
// start (what its `task` tool offers); without one they are read from the config and project files.
import type { LoadedConfig } from "../../config/load.ts";
import { loadSubagentDefinitions, type SubagentDefinitions } from "./definitions.ts";
import { definitionSources } from "./host.ts";

export function subagentCatalog(loaded: LoadedConfig, session?: SubagentDefinitions): Record<string, unknown>[] {
  const followSymlinks = loaded.config.daemon?.follow_symlinks_for_configs ?? true;
  const { usable } = session ?? loadSubagentDefinitions(definitionSources(loaded, followSymlinks), []);
  return [...usable.values()].map((d) => ({ name: d.name, description: d.description, tags: d.tags, origin: d.origin }));
}
