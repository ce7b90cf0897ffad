// The tools a session offers: the registry's built-ins and engine tools, plus the tools of connected
// tool servers (MCP), which come and go as servers connect and change their lists. Disabled names are
// never offered, whichever side they come from.
import type { ToolRegistry } from "../tools/registry.ts";
import type { Tool } from "../tools/tool.ts";

export interface ToolSet {
  get(name: string): Tool | undefined;
  list(): Tool[];
  /** Why a call of this offered tool may not run now (the active facet forbids it); null: it may. */
  refusal?(name: string): string | null;
}

export function combinedTools(registry: ToolRegistry, dynamic: () => Tool[], disabled: readonly string[]): ToolSet {
  const off = new Set(disabled);
  const extra = () => dynamic().filter((t) => !off.has(t.name) && !registry.get(t.name));
  return {
    get: (name) => registry.get(name) ?? extra().find((t) => t.name === name),
    list: () => [...registry.list(), ...extra()],
  };
}
