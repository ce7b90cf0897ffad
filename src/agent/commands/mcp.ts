// `/mcp`: the session's tool servers with state and tool count; their resources; enable, disable or reconnect one.
import type { McpManager } from "../../mcp/manager.ts";
import type { McpServerStatus } from "../../mcp/types.ts";
import { SessionCommandError, type SessionCommand } from "./types.ts";

const ACTIONS = ["list", "resources", "enable", "disable", "reconnect"] as const;
type Action = (typeof ACTIONS)[number];

function describe(s: McpServerStatus): string {
  const tools = s.state === "connected" ? `, ${s.toolCount} tool${s.toolCount === 1 ? "" : "s"}` : "";
  const why = s.reason ? ` (${s.reason})` : "";
  return `${s.name}: ${s.state}${tools} [${s.transport}]${why}`;
}

function publicStatus(s: McpServerStatus) {
  // The authorization URL is for the local person only when the server needs it; never command/env/headers.
  return { name: s.name, transport: s.transport, state: s.state, tool_count: s.toolCount, ...(s.reason ? { reason: s.reason } : {}), ...(s.authorizationUrl ? { authorization_url: s.authorizationUrl } : {}) };
}

export const mcpCommand: SessionCommand = {
  name: "mcp",
  usage: "/mcp [list | resources [NAME] | enable NAME | disable NAME | reconnect NAME]",
  summary: "Tool servers: list them with state and tool count, list their resources (@server:uri), or enable, disable or reconnect one",
  whileBusy: true,
  async run({ services }, args) {
    const action = (args[0] ?? "list") as Action;
    if (!ACTIONS.includes(action)) throw new SessionCommandError("invalid_command", `unknown /mcp action '${args[0]}'; allowed: ${ACTIONS.join(", ")}`);
    const mcp = services.mcp;
    if (action === "list") {
      const servers = mcp?.servers() ?? [];
      const message = servers.length ? servers.map(describe).join("\n") : "No tool servers are configured (mcp_servers in the config file).";
      return { message, data: { servers: servers.map(publicStatus) } };
    }
    const name = args[1];
    if (action === "resources") return listResources(mcp, name, args.length > 2);
    if (!name || args.length > 2) throw new SessionCommandError("invalid_command", `usage: /mcp ${action} NAME`);
    const known = mcp?.servers().map((s) => s.name) ?? [];
    if (!mcp || !known.includes(name)) {
      throw new SessionCommandError("invalid_command", `no tool server is named '${name}'${known.length ? `; configured: ${known.join(", ")}` : " (none are configured)"}`);
    }
    const status = await mcp[action](name);
    return { message: describe(status), data: { server: publicStatus(status) } };
  },
};

/** `/mcp resources [NAME]`: what `@server:uri` mentions can name (the TUI's `@` menu reads `data.resources`). */
async function listResources(mcp: McpManager | null, server: string | undefined, extra: boolean) {
  if (extra) throw new SessionCommandError("invalid_command", "usage: /mcp resources [NAME]");
  const known = mcp?.servers().map((s) => s.name) ?? [];
  if (server && !known.includes(server)) throw new SessionCommandError("invalid_command", `no tool server is named '${server}'${known.length ? `; configured: ${known.join(", ")}` : " (none are configured)"}`);
  const resources = mcp ? await mcp.resources(server) : [];
  const rows = resources.map((r) => ({ server: r.server, uri: r.uri, name: r.name, ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mime_type: r.mimeType } : {}) }));
  const message = rows.length ? rows.map((r) => `@${r.server}:${r.uri}  ${r.name}`).join("\n") : "No connected tool server offers resources.";
  return { message, data: { resources: rows } };
}
