// Streamable HTTP to a remote tool server, on the SDK's transport: configured headers (and an
// `authorization-header` value) on every request, OAuth through the SDK's auth support, the test for
// an expired session, and ending a session we close.
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isLoopbackHttp, startCallbackListener, type CallbackListener } from "./oauth-callback.ts";
import { isMachineAuth, McpMachineAuthProvider } from "./oauth-machine.ts";
import { McpOAuthProvider } from "./oauth-provider.ts";
import { OAuthCredentialStore } from "./oauth-store.ts";
import type { McpClock, McpServerConfig } from "./types.ts";

export type HttpServerConfig = Extract<McpServerConfig, { transport: "http" }>;

/** How long shutdown waits for a server to acknowledge the end of its HTTP session (DELETE). */
const TERMINATE_TIMEOUT_MS = 2000;

/** The OAuth side of one HTTP server: its provider and, while an authorization may happen, a listener. */
export class HttpAuth {
  readonly provider?: McpOAuthProvider;
  /** Client credentials or cross-app access: tokens without a user at a browser. */
  readonly machine?: McpMachineAuthProvider;
  private listener?: CallbackListener;

  constructor(
    private readonly name: string,
    private readonly config: HttpServerConfig,
    dataRoot: string,
    clock: McpClock,
  ) {
    if (config.auth?.type === "oauth") {
      const store = new OAuthCredentialStore(dataRoot, config.auth_key_name ?? name, config.url);
      this.provider = new McpOAuthProvider(config.auth, store, clock, () => this.redirectUri());
    } else if (isMachineAuth(config.auth)) {
      this.machine = new McpMachineAuthProvider(config.auth, clock);
    }
  }

  /** Values that must never appear in a reason or a log line. */
  secrets(): string[] {
    const values = Object.values(this.config.headers ?? {});
    if (this.config.auth?.type === "authorization-header") values.push(this.config.auth.value);
    const tokens = this.provider?.tokens();
    if (tokens) values.push(tokens.access_token, ...(tokens.refresh_token ? [tokens.refresh_token] : []));
    const registration = this.config.auth?.type === "oauth" ? this.config.auth.registration : undefined;
    if (registration?.type === "pre-registered" && registration.client_secret) values.push(registration.client_secret);
    const auth = this.config.auth;
    if (isMachineAuth(auth)) {
      for (const v of [auth.client_secret, auth.type === "client-credentials" ? auth.private_key : auth.idp.client_secret, auth.type === "cross-app-access" ? auth.idp.id_token : undefined]) if (v) values.push(v);
    }
    if (this.machine) values.push(...this.machine.readSecrets);
    return values;
  }

  /**
   * The redirect URI, read by the SDK whenever it registers or builds an authorization URL (at connect, or
   * when a call needs more scope): a listener is started on first use and stopped by release().
   */
  private redirectUri(): string {
    const redirect = this.config.auth?.type === "oauth" ? this.config.auth.redirect : undefined;
    if (redirect?.type === "fixed") {
      const uri = new URL(redirect.uri);
      if (isLoopbackHttp(uri)) this.listener ??= startCallbackListener(uri);
      return uri.href;
    }
    this.listener ??= startCallbackListener();
    return this.listener.redirectUri;
  }

  /** The callback listener of the authorization in progress, if we can capture the redirect ourselves. */
  callbackListener(): CallbackListener | undefined {
    return this.listener;
  }

  /** Stops the listener once no authorization is pending (connected, disabled or closed). */
  release(): void {
    this.listener?.close();
    this.listener = undefined;
  }

  transport(): StreamableHTTPClientTransport {
    const headers: Record<string, string> = { ...this.config.headers };
    if (this.config.auth?.type === "authorization-header") {
      for (const key of Object.keys(headers)) if (key.toLowerCase() === "authorization") delete headers[key];
      headers.Authorization = this.config.auth.value;
    }
    return new StreamableHTTPClientTransport(new URL(this.config.url), {
      requestInit: { headers },
      ...(this.provider || this.machine ? { authProvider: this.provider ?? this.machine } : {}),
    });
  }
}

/**
 * The MCP spec's signal for an expired session: HTTP 404 to a request that carried a session id. The SDK
 * reports it as a StreamableHTTPError with that status.
 */
export function isExpiredSession(error: unknown, hadSession: boolean): boolean {
  return hadSession && error instanceof StreamableHTTPError && error.code === 404;
}

/** A `url` that is not an absolute http(s) URL fails the server with a clear reason, before any request. */
export function urlProblem(name: string, url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `mcp_servers.${name}.url is not a valid URL; expected an absolute http:// or https:// URL`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `mcp_servers.${name}.url uses ${parsed.protocol.replace(":", "")}; expected http or https`;
  }
  return undefined;
}

/**
 * An HTTP session we end ourselves is ended at the server too (DELETE with its session id), so it does not
 * hold state until its idle timeout; a server that does not answer in time is left to that timeout.
 */
export async function endHttpSession(transport: Transport): Promise<void> {
  if (!("terminateSession" in transport) || !transport.sessionId) return;
  const http = transport as StreamableHTTPClientTransport;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([http.terminateSession().catch(() => {}), new Promise((r) => (timer = setTimeout(r, TERMINATE_TIMEOUT_MS)))]);
  clearTimeout(timer);
}
