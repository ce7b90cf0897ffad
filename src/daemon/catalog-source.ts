// The catalog of a session built from its loaded config: facets and subagents as declared, models with
// their capabilities, the built-in tools with their input schemas, and tool servers by name and kind
// only (never commands, URLs, environment or credentials). Reading config is all it does.
import type { LoadedConfig } from "../config/load.ts";
import type { ResolvedModel } from "../config/models.ts";
import { createToolRegistry } from "../tools/registry.ts";
import { toolJsonSchema } from "../tools/tool.ts";
import type { CatalogContent } from "./catalog.ts";

export function catalogFromConfig(loaded: LoadedConfig, model: ResolvedModel | null): CatalogContent {
  const config = loaded.config;
  const models = [...loaded.models.models.values()].map((m) => ({
    name: m.key,
    class: m.class,
    provider: m.provider,
    provider_name: m.provider_name,
    origin: m.origin,
    reasoning: m.reasoning,
    capabilities: {
      context_window: m.context_window,
      max_output_tokens: m.max_output_tokens_per_turn,
      vision: m.supports_vision,
      edit_format: m.edit_format,
      tool_loading: m.tool_loading,
    },
    request_option_defaults: m.request_option_defaults,
  }));
  const registry = createToolRegistry({ editFormat: model?.edit_format ?? null, disabledTools: config.daemon?.disabled_tools ?? [] });
  const tools = registry.list().map((t) => ({ name: t.name, description: t.description, input_schema: toolJsonSchema(t), strict: false, origin: "builtin" }));
  const declared = (map: Record<string, { source: string }> | undefined | null) =>
    Object.entries(map ?? {}).map(([name, def]) => ({ name, source: def.source.startsWith("agent://") ? def.source : "project" }));
  const servers = Object.entries(config.mcp_servers ?? {}).map(([name, s]) => ({
    name,
    transport: (s as { transport: string }).transport,
    state: (s as { enabled?: boolean | null }).enabled === false ? "disabled" : "configured",
    tool_count: 0,
    tools: [],
  }));
  return { facets: declared(config.facets as never), models, subagents: declared(config.subagents as never), skills: [], tools, mcp_servers: servers, extensions: [] };
}
