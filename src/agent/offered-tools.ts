// The tools a model request offers, by the model's `tool_loading`: none (`no_tools`), every tool the
// facet allows (`eager`; tool_search is left out, there is nothing left to find), or deferred
// (`native_deferred`): the required tools and those tool_search found since.
import { REQUIRED_TOOL_NAMES } from "../config/builtin-names.ts";
import type { ResolvedModel } from "../config/models.ts";
import type { ToolSpec } from "../providers/request.ts";
import { toolJsonSchema, type Tool } from "../tools/tool.ts";

export class OfferedTools {
  /** Deferred loading: the required tools, then the ones tool_search found. */
  private readonly found = new Set<string>(REQUIRED_TOOL_NAMES);

  constructor(
    /** The tools the active facet allows (the facet may switch). */
    private readonly allowed: () => readonly Tool[],
    /** The tool loading of the model in effect (the model may switch). */
    private readonly loading: () => ResolvedModel["tool_loading"],
  ) {}

  /** tool_search found these: a deferred-loading model is offered them from the next request on. */
  add(names: readonly string[]): void {
    names.forEach((n) => this.found.add(n));
  }

  specs(): ToolSpec[] {
    const loading = this.loading();
    if (loading === "no_tools") return [];
    const list = loading === "native_deferred" ? this.allowed().filter((t) => this.found.has(t.name)) : this.allowed().filter((t) => t.name !== "tool_search");
    return list.map((t) => ({ name: t.name, description: t.description, input_schema: toolJsonSchema(t) }));
  }
}
