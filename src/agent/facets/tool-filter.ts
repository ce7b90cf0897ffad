// Which tools a facet offers. A read-only facet (plan) keeps the read-only built-ins and drops the ones
// that change things and every tool-server and extension tool; a facet file's `tools` list offers
// exactly those. The engine's required tools stay in every facet. The filter reads the facet at each
// call, so a switch takes effect at the next model request.
import { BUILTIN_TOOL_NAMES, REQUIRED_TOOL_NAMES } from "../../config/builtin-names.ts";
import type { Tool } from "../../tools/tool.ts";
import { READ_ONLY_TOOLS, type Facet } from "../context/facets.ts";
import type { ToolSet } from "../tool-set.ts";

const REQUIRED: ReadonlySet<string> = new Set(REQUIRED_TOOL_NAMES);
const BUILTIN: ReadonlySet<string> = new Set(BUILTIN_TOOL_NAMES);

export function facetAllows(facet: Facet, tool: string): boolean {
  if (REQUIRED.has(tool)) return true;
  if (facet.tools) return facet.tools.includes(tool);
  if (facet.readOnly) return READ_ONLY_TOOLS.has(tool) || !(BUILTIN.has(tool) || tool.startsWith("mcp__") || tool.startsWith("ext__"));
  return true;
}

/** The session's tools as the active facet sees them; a blocked tool is not found, so it cannot run. */
export function facetTools(tools: ToolSet, facet: () => Facet): ToolSet {
  return {
    get: (name) => (facetAllows(facet(), name) ? tools.get(name) : undefined),
    list: (): Tool[] => tools.list().filter((t) => facetAllows(facet(), t.name)),
  };
}
