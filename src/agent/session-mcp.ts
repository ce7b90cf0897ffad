// A session's tool servers (MCP): the config's `mcp_servers` and an editor's (src/agent/session-tool-servers.ts),
// started in the background once the session is wired. The person hears of every state change; the model
// hears of a server's changes after its first connection settled (tools it may have used came or went).
import { dataRoot, type Env } from "../config/files.ts";
import type { AppConfig } from "../config/schema.ts";
import type { McpManager } from "../mcp/manager.ts";
import type { McpElicitation } from "../mcp/types.ts";
import type { Tracer } from "../telemetry/tracer.ts";
import type { Clock } from "../util/clock.ts";
import { askForm } from "./mcp-elicitation.ts";
import type { NotificationCenter } from "./notifications/center.ts";
import type { AgentSession } from "./session.ts";
import { sessionLogSink } from "./session-log.ts";
import { readSessionToolServers } from "./session-tool-servers.ts";

export interface SessionMcpOptions {
  config: Pick<AppConfig, "mcp_servers">;
  sessionDir?: string | null;
  env: Env;
  clock: Clock;
  projectRoot: string;
  tracer: Tracer;
  /** Where whole tool results over a server's cap go. */
  outputDir: string;
  scrub: (text: string) => string;
  /** A client (the TUI) can show a server's form; headless, a server's request for input is declined. */
  interactive: boolean;
  /** The session being built (asked only once servers run). */
  session: () => AgentSession;
}

/** The session's tool server manager, not started; null when the session has no servers. */
export async function sessionMcp(opts: SessionMcpOptions): Promise<McpManager | null> {
  // Servers start in a read-only facet too (a switch to execute offers their tools); the facet hides them.
  // An editor's servers (agent acp) join the config's; a config server of the same name wins.
  const mcpServers = { ...readSessionToolServers(opts.sessionDir), ...opts.config.mcp_servers };
  if (Object.keys(mcpServers).length === 0) return null;
  // The MCP SDK (and its schema libraries) load only for sessions that have tool servers.
  return (await import("../mcp/index.ts")).createMcpManager({
    servers: mcpServers as never,
    dataRoot: dataRoot(opts.env),
    clock: opts.clock,
    log: sessionLogSink(opts.sessionDir, () => opts.clock.now(), opts.scrub),
    cwd: opts.projectRoot,
    env: opts.env,
    tracer: opts.tracer,
    outputDir: opts.outputDir,
    // A client (the TUI) shows the form; headless (agent exec) a server's request for input is declined, and said.
    ...(opts.interactive ? { elicit: (request: McpElicitation, signal: AbortSignal) => askForm(opts.session(), request, signal) } : {}),
    onDeclined: (server, message) => opts.session().notice("warning", `tool server ${server} asked for input ("${message}"); this session cannot ask you, so it was declined`),
  });
}

/** Reports server changes to the person and the model, then connects the servers in the background. */
export function startSessionMcp(mcp: McpManager, session: AgentSession, notifications: NotificationCenter, closing: () => boolean): void {
  // A server's first connection is not news to the model (it never saw those tools); later changes are:
  // tools it may have used came or went. Nothing is said once the session is closing.
  const settled = new Set<string>();
  mcp.onChange((e) => {
    const s = e.server;
    if (closing()) return;
    const detail = s.state === "connected" ? ` (${s.toolCount} tools)` : s.reason ? `: ${s.reason}` : "";
    session.notice(s.state === "failed" ? "warning" : "info", `tool server ${s.name}: ${s.state}${detail}`);
    for (const warning of s.warnings ?? []) session.notice("warning", `tool server ${s.name}: ${warning}`);
    if (settled.has(s.name)) notifications.notify(`mcp:${s.name}`, `Tool server ${s.name} is now ${s.state}${detail}; its tools are ${s.state === "connected" ? "available" : "unavailable"}.`);
    else if (s.state !== "connecting") settled.add(s.name);
  });
  // Servers connect in the background (each within its startup_timeout_seconds): the session starts at
  // once, and a server's tools join the catalog when it is ready.
  void mcp.start();
}
