// The SDK client a connection opens and the transport its config names: the capabilities we declare
// (roots, form elicitation with defaults; no sampling), the handlers for the server's requests (roots,
// elicitation), and the hooks for its list-changed notifications.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { VERSION } from "../version.ts";
import type { HttpAuth } from "./http-transport.ts";
import { StdioChildTransport } from "./stdio-transport.ts";
import type { McpClock, McpElicitationHandler, McpLogSink, McpServerConfig, McpServerStatus } from "./types.ts";

export interface ConnectionDeps {
  dataRoot: string;
  clock: McpClock;
  log: McpLogSink;
  cwd: string;
  parentEnv: Readonly<Record<string, string | undefined>>;
  /** Where whole tool results over the cap are kept. */
  outputDir: string;
  /** The directories servers may work in (MCP roots): the project root. */
  roots: readonly string[];
  /** Asks the user for what a server requests; absent, requests are declined and `onDeclined` says so. */
  elicit?: McpElicitationHandler;
  onDeclined?(server: string, message: string): void;
  onChange(status: McpServerStatus, toolsChanged: boolean): void;
  /** The server announced a new prompt list (prompts/list_changed); `prompts()` lists the new one. */
  onPromptsChanged?(server: string): void;
  onProgress(event: { server: string; tool: string; progress: number; total?: number; message?: string }): void;
}

/** What the client's list-changed notifications call. */
export interface ListChangedHooks {
  tools(): void;
  prompts(): void;
}

/** A client for the server `name`, answering its roots and elicitation requests. */
export function newClient(name: string, deps: ConnectionDeps, onListChanged: ListChangedHooks): Client {
  // Sampling is not offered: a server cannot spend the user's model budget (docs/decisions-mcp.md 28).
  const client = new Client(
    { name: "agent", version: VERSION },
    {
      capabilities: { roots: { listChanged: false }, elicitation: { form: { applyDefaults: true } } },
      listChanged: {
        tools: { autoRefresh: false, onChanged: () => onListChanged.tools() },
        // Prompts are listed on demand (prompts()): the notice is enough for whoever keeps a list.
        prompts: { autoRefresh: false, onChanged: () => onListChanged.prompts() },
      },
    },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: deps.roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: basename(dir) })),
  }));
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const params = request.params as { mode?: string; message: string; requestedSchema?: Record<string, unknown>; url?: string };
    if (params.mode === "url") {
      deps.onDeclined?.(name, `asked you to open ${params.url ?? "a page"}: ${params.message}`);
      return { action: "decline" };
    }
    const elicit = deps.elicit;
    if (!elicit) {
      deps.onDeclined?.(name, params.message);
      return { action: "decline" };
    }
    return elicit({ server: name, message: params.message, requestedSchema: params.requestedSchema ?? { type: "object", properties: {} } }, extra.signal);
  });
  return client;
}

/** A stdio child for a stdio server, the SDK's streamable HTTP transport (with our auth) for an HTTP one. */
export function transportFor(name: string, config: McpServerConfig, deps: ConnectionDeps, http: HttpAuth | undefined): Transport {
  if (config.transport !== "stdio") return http!.transport();
  return new StdioChildTransport({
    server: name,
    command: config.command,
    args: config.args ?? [],
    env: config.env ?? {},
    passEnv: config.pass_env,
    logStderr: config.log_stderr ?? true,
    logStdout: config.log_stdout ?? false,
    cwd: deps.cwd,
    log: deps.log,
    parentEnv: deps.parentEnv,
  });
}
