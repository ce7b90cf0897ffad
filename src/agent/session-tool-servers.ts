// Tool servers that belong to one session rather than to a config file: an editor passes its MCP
// servers with the Agent Client Protocol's session/new (src/acp), and `agent acp` writes them to the
// session dir (0600: they may carry tokens in env or headers). The session adds them to the config's
// mcp_servers when it starts; a config server of the same name wins.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SESSION_TOOL_SERVERS_FILE = "tool-servers.json";

export function readSessionToolServers(sessionDir: string | null | undefined): Record<string, unknown> {
  if (!sessionDir) return {};
  try {
    const doc = JSON.parse(readFileSync(join(sessionDir, SESSION_TOOL_SERVERS_FILE), "utf8")) as { version?: number; servers?: unknown };
    return doc.version === 1 && doc.servers && typeof doc.servers === "object" ? (doc.servers as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function writeSessionToolServers(sessionDir: string, servers: Record<string, unknown>): void {
  writeFileSync(join(sessionDir, SESSION_TOOL_SERVERS_FILE), `${JSON.stringify({ version: 1, servers })}\n`, { mode: 0o600 });
}
