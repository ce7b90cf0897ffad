// Which tools a facet lets run. The tool list the model is offered stays the same in every facet whose
// restriction is "read-only" (execute and plan offer the same tools in the same order), so a facet switch
// does not rewrite the provider's cached prefix: the facet is said in a reminder and enforced here, at
// call time, with a refusal the model can act on. A facet file's explicit `tools` list is a narrowing the
// user asked for, so that facet offers exactly those. The engine's required tools stay in every facet.
// The filter reads the facet at each call, so a switch takes effect at the next model request.
import { REQUIRED_TOOL_NAMES, toolListed } from "../../config/builtin-names.ts";
import { BUILTIN_TOOL_TRAITS, planSafeTools, type ToolTraitTable } from "../../protocol/tool-traits.ts";
import type { Tool } from "../../tools/tool.ts";
import type { Facet } from "../context/facets.ts";
import type { ToolSet } from "../tool-set.ts";

const REQUIRED: ReadonlySet<string> = new Set(REQUIRED_TOOL_NAMES);

/** `traits`: what each built-in tool is (a read-only facet runs those safe in plan mode); other tools' traits are unknown. */
export function facetAllows(facet: Facet, tool: string, traits: ToolTraitTable = BUILTIN_TOOL_TRAITS): boolean {
  if (REQUIRED.has(tool)) return true;
  if (facet.tools) return toolListed(facet.tools, tool);
  if (facet.readOnly) {
    if (Object.hasOwn(traits, tool)) return traits[tool]!.planSafe;
    return !(tool.startsWith("mcp__") || tool.startsWith("ext__"));
  }
  return true;
}

/** What the model reads when it calls a tool the active facet does not let run. */
export function facetRefusal(facet: Facet, tool: string, traits: ToolTraitTable = BUILTIN_TOOL_TRAITS): string {
  if (facet.readOnly && !facet.tools) {
    return `\`${tool}\` cannot run in the ${facet.name} facet, which is read-only: nothing may change files, run commands or start work here. Use the read-only tools (${planSafeTools(traits).join(", ")}) to investigate, and put the change you would make into your answer; the user switches to another facet to carry it out.`;
  }
  return `\`${tool}\` cannot run in the ${facet.name} facet; it offers only ${(facet.tools ?? []).concat(REQUIRED_TOOL_NAMES).join(", ")}.`;
}

/**
 * The session's tools as the active facet sees them: the full list (or a facet's own `tools` list), and
 * for a call the facet does not allow, a refusal instead of a run.
 */
export function facetTools(tools: ToolSet, facet: () => Facet): ToolSet {
  return {
    get: (name) => {
      const f = facet();
      return !f.tools || facetAllows(f, name) ? tools.get(name) : undefined;
    },
    list: (): Tool[] => {
      const f = facet();
      return f.tools ? tools.list().filter((t) => facetAllows(f, t.name)) : tools.list();
    },
    refusal: (name) => {
      const f = facet();
      return tools.get(name) && !facetAllows(f, name) ? facetRefusal(f, name) : null;
    },
  };
}
