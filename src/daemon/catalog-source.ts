// The catalog of a session built from its loaded config: facets as declared, subagents as defined (built-in,
// project files, explicit sources: description, tags, origin), models with
// their capabilities, the built-in tools with their input schemas, and tool servers by name and kind
// only (never commands, URLs, environment or credentials). With a running session's live view it also
// describes the loaded skills, the session's actual tools, each tool server's connection state and
// tool ids, and the extensions that actually loaded. Reading is all it does: no server is started, no
// model selected.
import type { SessionCatalogView } from "../agent/create-session.ts";
import type { LoadedConfig } from "../config/load.ts";
import { facetCatalog } from "../agent/facets/catalog.ts";
import type { ResolvedModel } from "../config/models.ts";
import { createToolRegistry } from "../tools/registry.ts";
import { toolJsonSchema } from "../tools/tool.ts";
import { subagentCatalog } from "../agent/subagents/catalog.ts";
import { EXTENSION_TOOL_PREFIX } from "../agent/extensions/load.ts";
import type { CatalogContent } from "./catalog.ts";

export function catalogFromConfig(loaded: LoadedConfig, model: ResolvedModel | null, live?: SessionCatalogView): CatalogContent {
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
    // USD per million tokens (models.dev), for pickers; null for local and custom models.
    cost: m.cost ?? null,
  }));
  const toolList = live ? live.tools.list() : createToolRegistry({ editFormat: model?.edit_format ?? null, disabledTools: config.daemon?.disabled_tools ?? [] }).list();
  const tools = toolList.map((t) => ({ name: t.name, description: t.description, input_schema: toolJsonSchema(t), strict: false, origin: toolOrigin(t.name) }));
  const declared = (map: Record<string, { source: string }> | undefined | null) =>
    Object.entries(map ?? {}).map(([name, def]) => ({ name, source: def.source.startsWith("agent://") ? def.source : "project" }));
  const servers = live?.mcp ? liveServers(live) : Object.entries(config.mcp_servers ?? {}).map(([name, s]) => ({
    name,
    transport: (s as { transport: string }).transport,
    state: (s as { enabled?: boolean | null }).enabled === false ? "disabled" : "configured",
    tool_count: 0,
    tools: [],
  }));
  const skills = (live?.skills ?? []).map((k) => ({ name: k.name, description: k.description, origin: k.origin, user_invocable: k.userInvocable, model_invocable: k.modelInvocable }));
  return { facets: facetCatalog(loaded), models, subagents: subagentCatalog(loaded, live?.subagents), skills, tools, mcp_servers: servers, extensions: live?.extensions?.catalog() ?? [] };
}

function toolOrigin(name: string): "mcp" | "extension" | "builtin" {
  if (name.startsWith("mcp__")) return "mcp";
  return name.startsWith(EXTENSION_TOOL_PREFIX) ? "extension" : "builtin";
}

/** Each tool server's state, tool count and synthetic tool ids, as the session's manager sees them now. */
function liveServers(live: SessionCatalogView): CatalogContent["mcp_servers"] {
  const toolNames = live.tools.list().map((t) => t.name);
  return live.mcp!.servers().map((s) => {
    const prefix = `mcp__${s.name}__`;
    const tools = s.state === "connected" ? toolNames.filter((n) => n.startsWith(prefix)) : [];
    return { name: s.name, transport: s.transport, state: s.state, tool_count: s.toolCount, tools };
  });
}
