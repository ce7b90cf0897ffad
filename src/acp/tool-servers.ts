// The MCP servers an editor passes with session/new or session/load, in the shape of the config's
// `mcp_servers` block: they join the session's own tool servers (the daemon reads them from the session
// dir when it starts; docs/acp.md). Names become `mcp__<name>__<tool>` tool names, so they are reduced
// to letters, digits, `-` and `_` (no `__`), and a clash gets a numeric suffix.
import type { McpServer } from "@agentclientprotocol/sdk";

export type ToolServerConfig =
  | { transport: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { transport: "http"; url: string; headers: Record<string, string> };

/** Unsupported servers (SSE: mcpCapabilities.sse is false) are named in `skipped`. */
export function toolServersFrom(servers: readonly McpServer[]): { servers: Record<string, ToolServerConfig>; skipped: string[] } {
  const out: Record<string, ToolServerConfig> = {};
  const skipped: string[] = [];
  for (const server of servers) {
    const base = server.name.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/_{2,}/g, "_").replace(/^[-_]+|[-_]+$/g, "") || "server";
    let name = base;
    for (let i = 2; Object.hasOwn(out, name); i++) name = `${base}-${i}`;
    if ("type" in server && server.type === "http") {
      out[name] = { transport: "http", url: server.url, headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) };
    } else if ("command" in server) {
      out[name] = { transport: "stdio", command: server.command, args: [...server.args], env: Object.fromEntries(server.env.map((e) => [e.name, e.value])) };
    } else skipped.push(server.name);
  }
  return { servers: out, skipped };
}
