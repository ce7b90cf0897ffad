// One tool server's connection: its state, its SDK client and transport, its tools, OAuth authorization
// when the server asks for it, and re-initialization of an expired HTTP session.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { type StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  ElicitRequestSchema,
  type GetPromptResult,
  ListRootsRequestSchema,
  type ReadResourceResult,
  type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";
import { basename } from "node:path";
import type { Tool } from "../tools/tool.ts";
import { redactText } from "../util/redact.ts";
import { VERSION } from "../version.ts";
import { HttpAuth, isExpiredSession, urlProblem } from "./http-transport.ts";
import { StdioChildTransport } from "./stdio-transport.ts";
import { DEFAULT_MAX_OUTPUT_BYTES, engineToolName, type McpCall, toEngineTool } from "./tools.ts";
import type {
  McpClock,
  McpElicitationHandler,
  McpLogSink,
  McpPromptEntry,
  McpResourceEntry,
  McpResourceTemplateEntry,
  McpServerConfig,
  McpServerState,
  McpServerStatus,
} from "./types.ts";

/** The SDK applies a 60 s default to every request; call time limits are ours (default_timeout_seconds). */
const NO_SDK_TIMEOUT = 2 ** 31 - 1;
/** Authorizations in a row without one successful request before the server counts as refusing us. */
const MAX_AUTHORIZATIONS_WITHOUT_SUCCESS = 2;
/** How long connecting (handshake and tool list) may take unless `startup_timeout_seconds` says otherwise. */
export const DEFAULT_STARTUP_TIMEOUT_SECONDS = 30;
/** How long shutdown waits for a server to acknowledge the end of its HTTP session (DELETE). */
const TERMINATE_TIMEOUT_MS = 2000;
const EXPIRED_REASON = "the server ended the session (HTTP 404); reconnect it with /mcp, or set reinit_on_expired_session";

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

export class ServerConnection {
  private state: McpServerState;
  private reason?: string;
  private client?: Client;
  private transport?: Transport;
  private engineTools: Tool[] = [];
  /** Bumped on every connect/disconnect: callbacks of an older client are ignored. */
  private generation = 0;
  private reinit?: Promise<void>;
  private authorizationsWithoutSuccess = 0;
  private readonly http?: HttpAuth;
  private readonly blocked: Set<string>;
  /** Problems with the tool list (names that collide), shown with the status. */
  private warnings: string[] = [];

  constructor(
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly deps: ConnectionDeps,
  ) {
    this.state = "disabled";
    this.blocked = new Set(config.block_list ?? []);
    if (config.transport === "http") this.http = new HttpAuth(name, config, deps.dataRoot, deps.clock);
  }

  status(): McpServerStatus {
    const status: McpServerStatus = { name: this.name, transport: this.config.transport, state: this.state, toolCount: this.engineTools.length };
    if (this.state === "failed" && this.reason) status.reason = this.reason;
    const url = this.http?.provider?.pendingAuthorizationUrl;
    if (this.state === "needs_auth" && url) status.authorizationUrl = url.href;
    if (this.state === "connected" && this.warnings.length > 0) status.warnings = [...this.warnings];
    return status;
  }

  /** While an expired session is re-initialized the tools stay: their calls wait for the new session. */
  tools(): Tool[] {
    return this.state === "connected" || this.reinit ? this.engineTools : [];
  }

  /** Connects; resolves once connected, failed, or waiting for the user to authorize. */
  async connect(): Promise<void> {
    const generation = ++this.generation;
    this.setState("connecting");
    const problem = this.config.transport === "http" ? urlProblem(this.name, this.config.url) : undefined;
    if (problem) return this.fail(generation, problem);
    await this.closeClient();
    if (this.http?.provider) this.http.provider.pendingAuthorizationUrl = undefined;
    const seconds = this.config.startup_timeout_seconds ?? DEFAULT_STARTUP_TIMEOUT_SECONDS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StartupTimeout(seconds)), seconds * 1000);
    });
    try {
      await Promise.race([
        (async () => {
          await this.refreshIfExpired();
          await this.open(generation);
        })(),
        late,
      ]);
    } catch (error) {
      if (generation !== this.generation) return;
      if (error instanceof StartupTimeout) return this.fail(generation, error.message);
      const pending = this.http?.provider?.pendingAuthorizationUrl;
      if (error instanceof UnauthorizedError && pending) return this.awaitAuthorization(generation);
      const exited = this.transport instanceof StdioChildTransport ? await this.transport.exitReasonWithin(500) : undefined;
      if (generation !== this.generation) return;
      return this.fail(generation, exited ?? this.describe(error));
    } finally {
      clearTimeout(timer);
    }
    if (generation !== this.generation) return;
    this.http?.release();
    this.authorizationsWithoutSuccess = 0;
    this.setState("connected", true);
  }

  /** Closes the client (and a stdio child); the server stays listed as `disabled`. */
  async disconnect(): Promise<void> {
    this.generation++;
    this.http?.release();
    const hadTools = this.engineTools.length > 0;
    await this.closeClient(true);
    this.clearTools();
    this.setState("disabled", hadTools);
  }

  /**
   * Finishes an authorization whose redirect we could not capture ourselves (a fixed HTTPS redirect URI):
   * the user pastes the URL the browser was sent to, or just its code.
   */
  async completeAuthorization(callback: string): Promise<void> {
    if (this.state !== "needs_auth") throw new Error(`tool server "${this.name}" is not waiting for an authorization`);
    const text = callback.trim();
    const query = text.includes("?") ? new URLSearchParams(text.slice(text.indexOf("?") + 1)) : new URLSearchParams(text.includes("=") ? text : `code=${text}`);
    const code = query.get("code");
    if (!code) throw new Error("the pasted address carries no authorization code (expected ...?code=...&state=...)");
    const state = query.get("state");
    if (state !== null && state !== this.http?.provider?.expectedState()) {
      throw new Error("the pasted address belongs to another authorization (its state does not match); open the current link from /mcp");
    }
    await this.finishAuthorization(this.generation, code);
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal, onProgress?: (p: { progress: number; total?: number; message?: string }) => void, retried = false): Promise<CallToolResult> {
    if (this.reinit) await this.reinit;
    const client = this.client;
    if (!client || this.state !== "connected") throw this.unavailable();
    const generation = this.generation;
    const seconds = this.config.default_timeout_seconds;
    const timeout = seconds ? AbortSignal.timeout(seconds * 1000) : undefined;
    const hadSession = this.transport?.sessionId !== undefined;
    try {
      const result = (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: timeout ? AbortSignal.any([signal, timeout]) : signal,
        timeout: NO_SDK_TIMEOUT,
        onprogress: (p) => {
          this.deps.onProgress({ server: this.name, tool, progress: p.progress, total: p.total, message: p.message });
          onProgress?.({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) });
        },
      })) as CallToolResult;
      this.authorizationsWithoutSuccess = 0;
      return result;
    } catch (error) {
      if (error instanceof UnauthorizedError && this.http?.provider?.pendingAuthorizationUrl && generation === this.generation) {
        // Step-up: the call needs more scope (or the token was revoked); the user has to authorize again.
        this.awaitAuthorization(generation);
        throw new Error(`the \`${this.name}\` tool server needs the user to authorize again (shown by /mcp); try the call after that`);
      }
      if (timeout?.aborted && !signal.aborted) {
        throw new Error(`no answer within ${seconds} s (default_timeout_seconds of "${this.name}"); the call was cancelled`);
      }
      // The session expired under this call, or another request noticed first and replaced the client:
      // the server never ran the call, so it is sent once more on the new session.
      const expired = isExpiredSession(error, hadSession) || (generation !== this.generation && this.reinit !== undefined);
      if (expired && this.config.transport === "http" && !retried) {
        if (!this.config.reinit_on_expired_session) {
          this.fail(generation, EXPIRED_REASON);
          throw this.unavailable();
        }
        await this.reinitialize();
        return this.call(tool, args, signal, onProgress, true);
      }
      if (generation !== this.generation) throw this.unavailable();
      throw new Error(this.describe(error));
    }
  }

  /** The server's resources (every page); empty when it offers none. */
  async resources(): Promise<McpResourceEntry[]> {
    const client = this.readyClient();
    if (!client?.getServerCapabilities()?.resources) return [];
    const out: McpResourceEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : undefined, { timeout: this.requestTimeout() });
      for (const r of page.resources) out.push({ server: this.name, uri: r.uri, name: r.name, ...(r.title ? { title: r.title } : {}), ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}) });
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  async resourceTemplates(): Promise<McpResourceTemplateEntry[]> {
    const client = this.readyClient();
    if (!client?.getServerCapabilities()?.resources) return [];
    const out: McpResourceTemplateEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResourceTemplates(cursor ? { cursor } : undefined, { timeout: this.requestTimeout() });
      for (const t of page.resourceTemplates) out.push({ server: this.name, uriTemplate: t.uriTemplate, name: t.name, ...(t.description ? { description: t.description } : {}) });
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const client = this.readyClient();
    if (!client) throw this.unavailable();
    return client.readResource({ uri }, { timeout: this.requestTimeout(), ...(signal ? { signal } : {}) });
  }

  async prompts(): Promise<McpPromptEntry[]> {
    const client = this.readyClient();
    if (!client?.getServerCapabilities()?.prompts) return [];
    const out: McpPromptEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listPrompts(cursor ? { cursor } : undefined, { timeout: this.requestTimeout() });
      for (const p of page.prompts) out.push({ server: this.name, name: p.name, ...(p.description ? { description: p.description } : {}), arguments: (p.arguments ?? []).map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), ...(a.required ? { required: true } : {}) })) });
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  async getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult> {
    const client = this.readyClient();
    if (!client) throw this.unavailable();
    return client.getPrompt({ name, arguments: args }, { timeout: this.requestTimeout() });
  }

  /** Whether the server is connected and offers resources (the model then gets the resource tools). */
  offersResources(): boolean {
    return !!this.readyClient()?.getServerCapabilities()?.resources;
  }

  /** The cap and the place for whole results, for results produced on this server's behalf. */
  outputLimits(): { maxOutputBytes: number; outputDir: string } {
    return { maxOutputBytes: this.config.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES, outputDir: this.deps.outputDir };
  }

  private readyClient(): Client | undefined {
    return this.state === "connected" ? this.client : undefined;
  }

  /** Listing and reading are short requests: the call limit when set, else the startup limit. */
  private requestTimeout(): number {
    return (this.config.default_timeout_seconds ?? this.config.startup_timeout_seconds ?? DEFAULT_STARTUP_TIMEOUT_SECONDS) * 1000;
  }

  private unavailable(): Error {
    return new Error(`the \`${this.name}\` tool server is ${this.state}${this.reason ? ` (${this.reason})` : ""}; its tools cannot run until the user reconnects it with /mcp`);
  }

  private async open(generation: number): Promise<void> {
    // Sampling is not offered: a server cannot spend the user's model budget (docs/decisions-mcp.md 28).
    const client = new Client(
      { name: "agent", version: VERSION },
      {
        capabilities: { roots: { listChanged: false }, elicitation: { form: { applyDefaults: true } } },
        listChanged: {
          tools: { autoRefresh: false, onChanged: () => void this.refreshTools(client, generation) },
          // Prompts are listed on demand (prompts()): the notice is enough for whoever keeps a list.
          prompts: { autoRefresh: false, onChanged: () => generation === this.generation && this.deps.onPromptsChanged?.(this.name) },
        },
      },
    );
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: this.deps.roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: basename(dir) })),
    }));
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = request.params as { mode?: string; message: string; requestedSchema?: Record<string, unknown>; url?: string };
      if (params.mode === "url") {
        this.deps.onDeclined?.(this.name, `asked you to open ${params.url ?? "a page"}: ${params.message}`);
        return { action: "decline" };
      }
      const elicit = this.deps.elicit;
      if (!elicit) {
        this.deps.onDeclined?.(this.name, params.message);
        return { action: "decline" };
      }
      return elicit({ server: this.name, message: params.message, requestedSchema: params.requestedSchema ?? { type: "object", properties: {} } }, extra.signal);
    });
    const transport = this.config.transport === "stdio" ? this.stdioTransport() : this.http!.transport();
    client.onerror = (error) => this.onClientError(generation, transport, error);
    client.onclose = () => {
      if (generation !== this.generation || this.state !== "connected") return;
      this.fail(generation, transport instanceof StdioChildTransport && transport.exitReason ? transport.exitReason : "the connection closed");
    };
    this.client = client;
    this.transport = transport;
    await client.connect(transport);
    await this.refreshTools(client, generation, false);
  }

  private stdioTransport(): StdioChildTransport {
    const c = this.config as Extract<McpServerConfig, { transport: "stdio" }>;
    return new StdioChildTransport({
      server: this.name,
      command: c.command,
      args: c.args ?? [],
      env: c.env ?? {},
      passEnv: c.pass_env,
      logStderr: c.log_stderr ?? true,
      logStdout: c.log_stdout ?? false,
      cwd: this.deps.cwd,
      log: this.deps.log,
      parentEnv: this.deps.parentEnv,
    });
  }

  /** Lists every page of tools; a list-changed notification calls this again. */
  private async refreshTools(client: Client, generation: number, announce = true): Promise<void> {
    if (generation !== this.generation) return;
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: NO_SDK_TIMEOUT });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
    } catch (error) {
      if (!announce) throw error;
      this.deps.log({ server: this.name, source: "manager", level: "warn", message: `refreshing the tool list failed: ${this.describe(error)}` });
      return;
    }
    if (generation !== this.generation) return;
    const call: McpCall = (tool, args, signal, onProgress) => this.call(tool, args, signal, onProgress);
    const limits = { maxOutputBytes: this.config.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES, outputDir: this.deps.outputDir };
    const offered = tools.filter((t) => !this.blocked.has(engineToolName(this.name, t.name)) && !this.blocked.has(`mcp__${this.name}__${t.name}`));
    // Two tools whose names become the same after unsafe characters are replaced would shadow one another:
    // neither is offered, and the status says which.
    const byName = new Map<string, string[]>();
    for (const t of offered) byName.set(engineToolName(this.name, t.name), [...(byName.get(engineToolName(this.name, t.name)) ?? []), t.name]);
    this.warnings = [...byName].filter(([, names]) => names.length > 1).map(([name, names]) => `the tools ${names.map((n) => `"${n}"`).join(" and ")} would both be named ${name}; neither is offered`);
    for (const warning of this.warnings) this.deps.log({ server: this.name, source: "manager", level: "warn", message: warning });
    this.engineTools = offered.filter((t) => byName.get(engineToolName(this.name, t.name))!.length === 1).map((t) => toEngineTool(this.name, t, call, limits));
    if (announce && this.state === "connected") this.deps.onChange(this.status(), true);
  }

  private onClientError(generation: number, transport: Transport, error: Error): void {
    if (generation !== this.generation) return;
    if (isExpiredSession(error, transport.sessionId !== undefined) && this.state === "connected") {
      if (this.config.transport === "http" && this.config.reinit_on_expired_session) void this.reinitialize().catch(() => {});
      else this.fail(generation, EXPIRED_REASON);
      return;
    }
    // An authorization the user has to complete is a state (needs_auth), not a problem to log.
    if (!(error instanceof UnauthorizedError)) this.deps.log({ server: this.name, source: "manager", level: "warn", message: this.describe(error) });
  }

  /** One re-initialization at a time, shared by every call that saw the session expire. */
  private reinitialize(): Promise<void> {
    this.reinit ??= (async () => {
      this.deps.log({ server: this.name, source: "manager", level: "info", message: "session expired; initializing a new one" });
      await this.closeClient();
      await this.connect();
    })().finally(() => {
      this.reinit = undefined;
    });
    return this.reinit;
  }

  private async refreshIfExpired(): Promise<void> {
    const provider = this.http?.provider;
    if (!provider?.tokensExpired() || !provider.tokens()?.refresh_token) return;
    try {
      await auth(provider, { serverUrl: (this.config as { url: string }).url });
    } catch (error) {
      // A failed refresh leaves the server's 401 to start a new authorization.
      this.deps.log({ server: this.name, source: "manager", level: "warn", message: `token refresh failed: ${this.describe(error)}` });
    }
  }

  private awaitAuthorization(generation: number): void {
    if (++this.authorizationsWithoutSuccess > MAX_AUTHORIZATIONS_WITHOUT_SUCCESS) {
      return this.fail(generation, `the server still refuses access after ${MAX_AUTHORIZATIONS_WITHOUT_SUCCESS} authorizations in a row`);
    }
    const hadTools = this.engineTools.length > 0;
    if (hadTools) this.clearTools();
    this.setState("needs_auth", hadTools);
    const listener = this.http?.callbackListener();
    if (!listener) return; // A fixed HTTPS redirect: completeAuthorization() finishes it.
    const provider = this.http!.provider!;
    listener.next(() => provider.expectedState()).then(
      ({ code }) => this.finishAuthorization(generation, code),
      (error: unknown) => {
        if (generation === this.generation) this.fail(generation, `authorization failed: ${this.describe(error)}`);
      },
    );
  }

  private async finishAuthorization(generation: number, code: string): Promise<void> {
    const transport = this.transport as StreamableHTTPClientTransport | undefined;
    try {
      if (!transport) throw new Error("no authorization is in progress");
      await transport.finishAuth(code);
    } catch (error) {
      if (generation === this.generation) this.fail(generation, `authorization failed: ${this.describe(error)}`);
      return;
    }
    if (generation !== this.generation) return;
    this.http!.provider!.pendingAuthorizationUrl = undefined;
    await this.connect();
  }

  private async closeClient(terminate = false): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    // An HTTP session we end ourselves is ended at the server too (DELETE with its session id), so it does
    // not hold state until its idle timeout; a server that does not answer in time is left to that timeout.
    if (terminate && transport && "terminateSession" in transport && transport.sessionId) {
      const http = transport as StreamableHTTPClientTransport;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([http.terminateSession().catch(() => {}), new Promise((r) => (timer = setTimeout(r, TERMINATE_TIMEOUT_MS)))]);
      clearTimeout(timer);
    }
    if (client) await client.close().catch(() => {});
  }

  private clearTools(): void {
    this.engineTools = [];
  }

  private fail(generation: number, reason: string): void {
    if (generation !== this.generation) return;
    this.generation++;
    this.http?.release();
    const hadTools = this.engineTools.length > 0;
    void this.closeClient();
    this.clearTools();
    this.reason = reason;
    this.setState("failed", hadTools);
    this.deps.log({ server: this.name, source: "manager", level: "error", message: reason });
  }

  private setState(state: McpServerState, toolsChanged = false): void {
    if (state !== "failed") this.reason = undefined;
    if (state === this.state && !toolsChanged) return;
    this.state = state;
    this.deps.onChange(this.status(), toolsChanged);
  }

  /** An error in words for the user, with configured secrets and token shapes removed. */
  private describe(error: unknown): string {
    let message = error instanceof Error ? error.message : String(error);
    if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
      // The SDK's message carries the response body, often an HTML error page: keep only short plain text.
      const body = message.replace(/^Streamable HTTP error: [^:]*: ?/, "").trim();
      message = `HTTP ${error.code} from the server${body && body.length <= 200 && !body.startsWith("<") ? `: ${body}` : ""}`;
    }
    return redactText(message, this.http?.secrets() ?? []);
  }
}

class StartupTimeout extends Error {
  constructor(seconds: number) {
    super(`no answer within ${seconds} s of starting (startup_timeout_seconds); the server stays failed until you reconnect it with /mcp`);
  }
}
