// The gateway an (http) admin command talks to: `--gateway-url` / `--gateway-token`, else
// AGENT_GATEWAY_URL / AGENT_GATEWAY_TOKEN (else the OAuth sign-in stored for that gateway). Transport
// follows the URL scheme (src/client/tls-pin.ts): plaintext only to loopback, HTTPS with trust on first
// use; the trust prompt goes to stderr so `--json` output stays clean, and runs only on a terminal.
// Shared by the config, project and session commands; their flags are HTTP_TARGET in src/cli/gateway-commands.ts.
import { CliError, EXIT, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { GatewayAuthError, GatewayClient } from "../../client/gateway-client.ts";
import { describeTrustQuestion, type FetchLike, gatewayTransport, TlsPinError, type TrustQuestion } from "../../client/tls-pin.ts";

/** Exit codes of (http) commands, beyond EXIT.ok / failure / usage. */
export const HTTP_EXIT = { ...EXIT, unreachable: 3, notFound: 4, conflict: 5 } as const;

/** A refusal by the gateway: status, error code and the gateway's message. */
export class GatewayHttpError extends CliError {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message, status === 404 ? HTTP_EXIT.notFound : status === 409 ? HTTP_EXIT.conflict : HTTP_EXIT.failure);
    this.name = "GatewayHttpError";
  }
}

export interface GatewayTarget {
  baseUrl: string;
  /** A fetch through the trusted transport with the bearer token set. */
  fetch: FetchLike;
  /** JSON in, JSON out; a non-2xx answer throws GatewayHttpError naming the gateway's reason. */
  request<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

export interface TargetOptions {
  /** Overrides the terminal prompt (tests); without it a TTY gets a clack prompt and a pipe declines. */
  confirm?: (question: TrustQuestion) => Promise<boolean>;
}

function flag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** Asks on the terminal (stdin and stderr), so `--json | jq` can still be confirmed by a person. */
function terminalConfirm(io: Io): ((q: TrustQuestion) => Promise<boolean>) | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async (q) => {
    const { confirm, isCancel } = await import("@clack/prompts");
    io.err(`${describeTrustQuestion(q)}\n`);
    const answer = await confirm({ message: q.kind === "first_contact" ? `Trust this certificate for ${q.host}?` : `Trust the NEW certificate for ${q.host}?`, initialValue: false, output: process.stderr });
    return !isCancel(answer) && answer === true;
  };
}

export async function resolveGatewayTarget(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<GatewayTarget> {
  const raw = flag(args, "gateway-url") ?? io.env.AGENT_GATEWAY_URL;
  if (!raw) throw new CliError("no gateway given: pass --gateway-url URL or set AGENT_GATEWAY_URL", EXIT.usage);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--gateway-url: ${JSON.stringify(raw)} is not a URL (e.g. https://build-host:19870 or http://127.0.0.1:19870)`, EXIT.usage);
  }
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    throw new CliError(`--gateway-url: give only scheme, host and port (e.g. ${url.protocol}//${url.host}), without a path, query or credentials`, EXIT.usage);
  }
  const baseUrl = `${url.protocol}//${url.host}`;
  let transport: FetchLike;
  try {
    transport = await gatewayTransport(baseUrl, { env: io.env, confirm: options.confirm ?? terminalConfirm(io) });
  } catch (error) {
    if (error instanceof TlsPinError) throw new CliError(error.message, error.code === "plaintext_refused" ? EXIT.usage : HTTP_EXIT.unreachable);
    throw error;
  }
  const token = flag(args, "gateway-token") ?? io.env.AGENT_GATEWAY_TOKEN ?? (await storedSignIn(baseUrl, io, transport));
  const authed: FetchLike = (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return transport(input, { ...init, headers, redirect: "manual" });
  };
  return {
    baseUrl,
    fetch: authed,
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      let res: Response;
      try {
        res = await authed(`${baseUrl}${path}`, {
          method,
          headers: body === undefined ? { Accept: "application/json" } : { Accept: "application/json", "Content-Type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        throw new CliError(`cannot reach the gateway at ${baseUrl}: ${(error as Error).message}`, HTTP_EXIT.unreachable);
      }
      const text = await res.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      if (res.ok) return parsed as T;
      throw refusal(res.status, parsed);
    },
  };
}

/** The token of an earlier `agent connect` sign-in to this gateway, when there is one. */
async function storedSignIn(baseUrl: string, io: Io, transport: FetchLike): Promise<string> {
  try {
    return await new GatewayClient({ baseUrl, env: io.env, fetch: transport }).accessToken();
  } catch (error) {
    if (error instanceof GatewayAuthError && error.code === "login_required") {
      throw new CliError(`no token for ${baseUrl}: pass --gateway-token or set AGENT_GATEWAY_TOKEN (a token with the machine scope)`, EXIT.usage);
    }
    throw new CliError(`cannot use the stored sign-in for ${baseUrl}: ${(error as Error).message}`, HTTP_EXIT.failure);
  }
}

function refusal(status: number, body: unknown): GatewayHttpError {
  const b = (body ?? {}) as { error?: unknown; message?: unknown; errors?: Array<{ path?: string; message?: string }> };
  const code = typeof b.error === "string" ? b.error : `http_${status}`;
  if (status === 401) return new GatewayHttpError(status, code, "the gateway refused the token (401 unauthorized): it is unknown, revoked or expired");
  if (status === 403 && code === "insufficient_scope") return new GatewayHttpError(status, code, "the token lacks the machine scope these commands need (403 insufficient_scope)");
  const details = Array.isArray(b.errors) ? b.errors.map((e) => `${e.path ?? "/"}: ${e.message ?? "invalid"}`).join("; ") : "";
  const message = typeof b.message === "string" ? b.message : details || code;
  return new GatewayHttpError(status, code, `the gateway refused (${status} ${code}): ${message}`);
}
