// One tool server's connection: its state (disabled, connecting, connected, failed, needs_auth), its SDK
// client and transport, its tools, OAuth authorization when the server asks for it, and re-initialization
// of an expired HTTP session. The client's setup, the lists, a call and the error texts live beside it.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { Tool } from "../tools/tool.ts";
import { MAX_AUTHORIZATIONS_WITHOUT_SUCCESS, pastedAuthorizationCode, refreshIfExpired } from "./authorization.ts";
import { describeError, EXPIRED_REASON, unavailableError } from "./error-text.ts";
import { endHttpSession, HttpAuth, isExpiredSession, urlProblem } from "./http-transport.ts";
import { type ConnectionDeps, newClient, transportFor } from "./open-client.ts";
import { listAllTools, listPrompts, listResources, listResourceTemplates, offeredTools } from "./server-lists.ts";
import { StdioChildTransport } from "./stdio-transport.ts";
import { DEFAULT_STARTUP_TIMEOUT_SECONDS, requestTimeout, StartupTimeout } from "./timeouts.ts";
import { callTimeoutError, startToolCall, type ToolProgress } from "./tool-call.ts";
import { DEFAULT_MAX_OUTPUT_BYTES, type McpCall } from "./tools.ts";
import type { McpPromptEntry, McpResourceEntry, McpResourceTemplateEntry, McpServerConfig, McpServerState, McpServerStatus } from "./types.ts";

export type { ConnectionDeps } from "./open-client.ts";
export { DEFAULT_STARTUP_TIMEOUT_SECONDS } from "./timeouts.ts";

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
          if (this.config.transport === "http") {
            // A failed refresh leaves the server's 401 to start a new authorization.
            await refreshIfExpired(this.http, this.config.url, (error) => this.warn(`token refresh failed: ${this.describe(error)}`));
          }
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
    const code = pastedAuthorizationCode(callback, this.http?.provider?.expectedState());
    await this.finishAuthorization(this.generation, code);
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal, onProgress?: (p: ToolProgress) => void, retried = false): Promise<CallToolResult> {
    if (this.reinit) await this.reinit;
    const client = this.client;
    if (!client || this.state !== "connected") throw this.unavailable();
    const generation = this.generation;
    const seconds = this.config.default_timeout_seconds;
    const hadSession = this.transport?.sessionId !== undefined;
    const running = startToolCall(client, {
      tool,
      args,
      signal,
      ...(seconds ? { seconds } : {}),
      onAnyProgress: (p) => this.deps.onProgress({ server: this.name, tool, ...p }),
      ...(onProgress ? { onProgress } : {}),
    });
    try {
      const result = await running.result;
      this.authorizationsWithoutSuccess = 0;
      return result;
    } catch (error) {
      if (error instanceof UnauthorizedError && this.http?.provider?.pendingAuthorizationUrl && generation === this.generation) {
        // Step-up: the call needs more scope (or the token was revoked); the user has to authorize again.
        this.awaitAuthorization(generation);
        throw new Error(`the \`${this.name}\` tool server needs the user to authorize again (shown by /mcp); try the call after that`);
      }
      if (running.timedOut()) throw callTimeoutError(this.name, seconds);
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
    return listResources(client, this.name, requestTimeout(this.config));
  }

  async resourceTemplates(): Promise<McpResourceTemplateEntry[]> {
    const client = this.readyClient();
    if (!client?.getServerCapabilities()?.resources) return [];
    return listResourceTemplates(client, this.name, requestTimeout(this.config));
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const client = this.readyClient();
    if (!client) throw this.unavailable();
    return client.readResource({ uri }, { timeout: requestTimeout(this.config), ...(signal ? { signal } : {}) });
  }

  async prompts(): Promise<McpPromptEntry[]> {
    const client = this.readyClient();
    if (!client?.getServerCapabilities()?.prompts) return [];
    return listPrompts(client, this.name, requestTimeout(this.config));
  }

  async getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult> {
    const client = this.readyClient();
    if (!client) throw this.unavailable();
    return client.getPrompt({ name, arguments: args }, { timeout: requestTimeout(this.config) });
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

  private unavailable(): Error {
    return unavailableError(this.name, this.state, this.reason);
  }

  private async open(generation: number): Promise<void> {
    const client = newClient(this.name, this.deps, {
      tools: () => void this.refreshTools(client, generation),
      prompts: () => generation === this.generation && this.deps.onPromptsChanged?.(this.name),
    });
    const transport = transportFor(this.name, this.config, this.deps, this.http);
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

  /** Lists every page of tools; a list-changed notification calls this again. */
  private async refreshTools(client: Client, generation: number, announce = true): Promise<void> {
    if (generation !== this.generation) return;
    let tools;
    try {
      tools = await listAllTools(client);
    } catch (error) {
      if (!announce) throw error;
      this.warn(`refreshing the tool list failed: ${this.describe(error)}`);
      return;
    }
    if (generation !== this.generation) return;
    const call: McpCall = (tool, args, signal, onProgress) => this.call(tool, args, signal, onProgress);
    const offered = offeredTools(this.name, tools, this.blocked, call, this.outputLimits());
    this.warnings = offered.warnings;
    for (const warning of this.warnings) this.warn(warning);
    this.engineTools = offered.tools;
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
    if (!(error instanceof UnauthorizedError)) this.warn(this.describe(error));
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
    if (terminate && transport) await endHttpSession(transport);
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

  private warn(message: string): void {
    this.deps.log({ server: this.name, source: "manager", level: "warn", message });
  }

  private describe(error: unknown): string {
    return describeError(error, this.http?.secrets() ?? []);
  }
}
