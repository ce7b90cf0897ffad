// The facets a session can switch to, as the daemon catalog describes them: every built-in, file and
// configured facet with its description, model pin, read-only flag, tool list, declared policies and
// effective light/dark colors. Sources are coarse
// (`agent://...` or `project`): no file paths. A facet whose file cannot be read is listed as unavailable.
import type { LoadedConfig } from "../../config/load.ts";
import { facetNames, resolveFacet } from "../context/facets.ts";

export function facetCatalog(loaded: LoadedConfig): Record<string, unknown>[] {
  const { config, project } = loaded;
  const follow = config.daemon?.follow_symlinks_for_configs ?? true;
  return facetNames(config, project.agentDir).map((name) => {
    try {
      const f = resolveFacet(name, config, project.root, project.agentDir, follow, []);
      return { name, source: f.source.startsWith("agent://") ? f.source : "project", description: f.description, model: f.model, read_only: f.readOnly, tools: f.tools, policies: f.policies, colors: f.colors };
    } catch {
      return { name, source: "project", unavailable: true };
    }
  });
}
