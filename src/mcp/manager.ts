// One manager per session: every configured tool server, its state, and the engine tools of the connected
// ones. `/mcp` calls list/enable/disable/reconnect; the daemon catalog listens to change events.
import { resourceTools, type ResourceSource } from "./resource-tools.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServerConnection } from "./connection.ts";
import type { Tool } from "../tools/tool.ts";
import { traceMcpTools } from "../telemetry/mcp-spans.ts";
import type { Tracer } from "../telemetry/tracer.ts";
import type { GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type {
  McpChangeListener,
  McpClock,
  McpElicitationHandler,
  McpLogSink,
  McpProgressListener,
  McpPromptEntry,
  McpResourceEntry,
  McpResourceTemplateEntry,
  McpServerConfig,
  McpServerStatus,
} from "./types.ts";

export interface McpManagerOptions {
  /** `mcp_servers` of the loaded config (already validated). */
  servers: Readonly<Record<string, McpServerConfig>> | undefined;
  /** The data root (src/config/files.ts dataRoot); OAuth credentials go under `auth/mcp/`. */
  dataRoot: string;
  clock: McpClock;
  log: McpLogSink;
  /** Working directory of stdio servers (the project root). */
  cwd: string;
  /** The agent's environment, which `pass_env` copies from. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Spans for tool calls (src/telemetry); absent: none. */
  tracer?: Tracer;
  /** Where whole tool results over a server's `max_output_bytes` are kept (the session dir's `tool-output/`). */
  outputDir?: string;
  /** MCP roots: the directories servers may work in; default `[cwd]`. */
  roots?: readonly string[];
  /** Asks the user when a server requests input (elicitation); absent, requests are declined. */
  elicit?: McpElicitationHandler;
  /** A server's request was declined because nobody can answer it here (agent exec). */
  onDeclined?(server: string, message: string): void;
}

export interface McpManager {
  /**
   * Connects every server with `default_enabled` (not false), each in the background: tools appear as their
   * server connects (a change event). Resolves when each is connected, failed or needs auth; a session does
   * not wait for it. Calling it again returns the same promise.
   */
  start(): Promise<void>;
  /** The engine tools of connected servers, without blocked ones. */
  tools(): Tool[];
  servers(): McpServerStatus[];
  enable(name: string): Promise<McpServerStatus>;
  disable(name: string): Promise<McpServerStatus>;
  reconnect(name: string): Promise<McpServerStatus>;
  /** Finishes an OAuth authorization with the URL the browser was redirected to (or its code). */
  completeAuthorization(name: string, callback: string): Promise<McpServerStatus>;
  /** Returns a function that removes the listener. */
  onChange(listener: McpChangeListener): () => void;
  onProgress(listener: McpProgressListener): () => void;
  /** Called with the server's name when a connected server announces a new prompt list; returns a remover. */
  onPromptsChange(listener: (server: string) => void): () => void;
  /** Resources of connected servers (every server, or the one named). */
  resources(server?: string): Promise<McpResourceEntry[]>;
  resourceTemplates(server?: string): Promise<McpResourceTemplateEntry[]>;
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult>;
  /** Prompts of connected servers, offered as slash commands. */
  prompts(server?: string): Promise<McpPromptEntry[]>;
  getPrompt(server: string, name: string, args: Record<string, string>): Promise<GetPromptResult>;
  /** Disconnects everything; every stdio child is gone when this resolves. */
  close(): Promise<void>;
}

export function createMcpManager(options: McpManagerOptions): McpManager {
  const changeListeners = new Set<McpChangeListener>();
  const progressListeners = new Set<McpProgressListener>();
  const promptListeners = new Set<(server: string) => void>();
  const connections = new Map<string, ServerConnection>();
  let closed = false;
  let started: Promise<void> | undefined;

  for (const [name, config] of Object.entries(options.servers ?? {})) {
    connections.set(
      name,
      new ServerConnection(name, config, {
        dataRoot: options.dataRoot,
        clock: options.clock,
        log: options.log,
        cwd: options.cwd,
        parentEnv: options.env ?? process.env,
        outputDir: options.outputDir ?? join(tmpdir(), `agent-tool-output-${process.pid}`),
        roots: options.roots ?? [options.cwd],
        ...(options.elicit ? { elicit: options.elicit } : {}),
        onDeclined: (server, message) => {
          options.log({ server, source: "manager", level: "warn", message: `declined a request for input (nobody can answer here): ${message}` });
          options.onDeclined?.(server, message);
        },
        onChange: (server, toolsChanged) => {
          for (const listener of changeListeners) listener({ type: "mcp_server_changed", server, toolsChanged });
        },
        onPromptsChanged: (server) => {
          for (const listener of promptListeners) listener(server);
        },
        onProgress: (event) => {
          for (const listener of progressListeners) listener({ type: "mcp_tool_progress", ...event });
        },
      }),
    );
  }

  const get = (name: string): ServerConnection => {
    const connection = connections.get(name);
    if (!connection) {
      const known = [...connections.keys()];
      throw new Error(`no tool server named "${name}"; configured: ${known.length > 0 ? known.join(", ") : "none"}`);
    }
    if (closed) throw new Error("the session's tool servers are closed");
    return connection;
  };

  const withResources = () => [...connections.values()].filter((c) => c.offersResources());
  const resourceSource: ResourceSource = {
    servers: () => withResources().map((c) => c.name),
    resources: async (server) => (await Promise.all((server ? [get(server)] : withResources()).map((c) => c.resources().catch(() => [])))).flat(),
    resourceTemplates: async (server) => (await Promise.all((server ? [get(server)] : withResources()).map((c) => c.resourceTemplates().catch(() => [])))).flat(),
    read: (server, uri, signal) => get(server).readResource(uri, signal) as never,
    limits: (server) => get(server).outputLimits(),
  };

  return {
    start() {
      const enabled = Object.entries(options.servers ?? {}).filter(([, c]) => c.default_enabled !== false);
      started ??= Promise.all(enabled.map(([name]) => get(name).connect())).then(() => {});
      return started;
    },
    tools() {
      const tools = [...connections.values()].flatMap((c) => traceMcpTools(options.tracer, c.name, c.tools()));
      return [...connections.values()].some((c) => c.offersResources()) ? [...tools, ...resourceTools(resourceSource)] : tools;
    },
    servers() {
      return [...connections.values()].map((c) => c.status());
    },
    async enable(name) {
      const connection = get(name);
      if (connection.status().state === "disabled" || connection.status().state === "failed") await connection.connect();
      return connection.status();
    },
    async disable(name) {
      const connection = get(name);
      await connection.disconnect();
      return connection.status();
    },
    async reconnect(name) {
      const connection = get(name);
      await connection.disconnect();
      await connection.connect();
      return connection.status();
    },
    async completeAuthorization(name, callback) {
      const connection = get(name);
      await connection.completeAuthorization(callback);
      return connection.status();
    },
    onChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    onProgress(listener) {
      progressListeners.add(listener);
      return () => progressListeners.delete(listener);
    },
    onPromptsChange(listener) {
      promptListeners.add(listener);
      return () => promptListeners.delete(listener);
    },
    async resources(server) {
      const list = server ? [get(server)] : [...connections.values()];
      return (await Promise.all(list.map((c) => c.resources().catch(() => [])))).flat();
    },
    async resourceTemplates(server) {
      const list = server ? [get(server)] : [...connections.values()];
      return (await Promise.all(list.map((c) => c.resourceTemplates().catch(() => [])))).flat();
    },
    readResource(server, uri, signal) {
      return get(server).readResource(uri, signal);
    },
    async prompts(server) {
      const list = server ? [get(server)] : [...connections.values()];
      return (await Promise.all(list.map((c) => c.prompts().catch(() => [])))).flat();
    },
    getPrompt(server, name, args) {
      return get(server).getPrompt(name, args);
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...connections.values()].map((c) => c.disconnect()));
    },
  };
}
