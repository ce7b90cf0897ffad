// The manager's public shapes: server status, the change events the daemon catalog publishes, and the
// dependencies a session passes in.
import type { Static } from "@sinclair/typebox";
import type { McpServer } from "../config/schema/mcp.ts";

export type McpServerConfig = Static<typeof McpServer>;

/**
 * `disabled`: listed, not connected (default_enabled false, or disabled through `/mcp`).
 * `needs_auth`: waiting for the user to complete an OAuth authorization in a browser.
 */
export type McpServerState = "disabled" | "connecting" | "connected" | "failed" | "needs_auth";

export interface McpServerStatus {
  name: string;
  transport: McpServerConfig["transport"];
  state: McpServerState;
  /** Why the server failed, in words for the user; never contains secrets. Set for `failed` only. */
  reason?: string;
  /** Tools the model sees (after block_list). 0 unless connected. */
  toolCount: number;
  /** The authorization URL the user opens; set for `needs_auth` only. Local UI only, never published. */
  authorizationUrl?: string;
  /** Problems with a connected server's tool list, e.g. two tools whose names collide (neither is offered). */
  warnings?: string[];
}

/** One change of a server's connection state or tool set, with the server's new status. */
export interface McpChangeEvent {
  type: "mcp_server_changed";
  server: McpServerStatus;
  /** True when the server's tool list changed (connected, list-changed notification, disconnected). */
  toolsChanged: boolean;
}

export type McpChangeListener = (event: McpChangeEvent) => void;

/** A line for the session log: child stderr/stdout lines and the manager's own notes. */
export interface McpLogEntry {
  server: string;
  source: "stderr" | "stdout" | "manager";
  level: "info" | "warn" | "error";
  message: string;
}

export type McpLogSink = (entry: McpLogEntry) => void;

export interface McpClock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** A progress notification of a running tool call (the server must support progress). */
export interface McpProgressEvent {
  type: "mcp_tool_progress";
  server: string;
  /** The server's own tool name. */
  tool: string;
  progress: number;
  total?: number;
  message?: string;
}

export type McpProgressListener = (event: McpProgressEvent) => void;

/** A server's request for input from the user (MCP elicitation, form mode). */
export interface McpElicitation {
  server: string;
  message: string;
  /** A flat JSON schema of primitive fields (string, number, integer, boolean, enum). */
  requestedSchema: Record<string, unknown>;
}

/** The user's answer; `accept` with the field values (defaults the user left are filled in by the client). */
export type McpElicitationAnswer = { action: "accept"; content: Record<string, string | number | boolean | string[]> } | { action: "decline" } | { action: "cancel" };

/** Asks the user; absent (agent exec, scripts), every request is declined with a notice. */
export type McpElicitationHandler = (request: McpElicitation, signal: AbortSignal) => Promise<McpElicitationAnswer>;

/** One resource of a server, as the model and the `@server:uri` mentions see it. */
export interface McpResourceEntry {
  server: string;
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface McpResourceTemplateEntry {
  server: string;
  uriTemplate: string;
  name: string;
  description?: string;
}

/** A server's prompt, offered as the slash command `/mcp__<server>__<prompt>`. */
export interface McpPromptEntry {
  server: string;
  name: string;
  description?: string;
  arguments: { name: string; description?: string; required?: boolean }[];
}
