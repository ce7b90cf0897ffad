// The session proxy, `any /api/v1/sessions/:id/proxy/*`, served by the edge before the Elysia app (the app
// would add a routing and body-parsing cost to every proxied byte). The upstream is always 127.0.0.1 and
// the session's registered port: the request path only ever becomes the upstream PATH. The caller's
// gateway token and cookies are replaced by the daemon's own token; hop-by-hop headers are dropped both
// ways; redirects are passed back, never followed; the client going away ends the upstream exchange.
// Requests go out through the gateway's own HTTP/1.1 client (upstream/upstream-client.ts), not fetch.
import type { Server } from "bun";
import type { AuthResult } from "../auth/bearer.ts";
import type { GatewayContext } from "../context.ts";
import { jsonResponse } from "../server/errors.ts";
import { pairsWithSecurityHeaders, withSecurityHeaders } from "../server/headers.ts";
import type { SessionSupervisor } from "./supervisor.ts";
import { ProtocolError } from "../../protocol/errors.ts";
import { MAX_DATA } from "../hosts/mux/frames.ts";
import type { RemoteHost } from "../hosts/routing.ts";
import { Deadlines } from "./deadlines.ts";
import { HOP_BY_HOP } from "./upstream/response-parser.ts";
import { UpstreamError } from "./upstream/upstream-client.ts";

const PREFIX = "/api/v1/sessions/";
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
/**
 * Request headers that carry the caller's gateway identity, name the gateway itself, or frame the body
 * (the body is forwarded with a length of our own). `expect`: the body was already read.
 */
const CALLER_ONLY = new Set(["authorization", "cookie", "host", "content-length", "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip", "expect"]);

export function isProxyPath(pathname: string): boolean {
  return pathname.startsWith(PREFIX) && /^\/api\/v1\/sessions\/[^/]+\/proxy(\/|$)/.test(pathname);
}

/** `..`, `.`, encoded slashes/backslashes/dots or NULs in the forwarded path are refused, not normalized. */
function traversal(rest: string): boolean {
  if (/%(2f|5c|2e|00)/i.test(rest) || rest.includes("\\")) return true;
  return rest.split("/").some((seg) => seg === ".." || seg === ".");
}

/** The caller's end-to-end headers: never its gateway credential or cookies. */
function endToEndHeaders(headers: Headers, callerOnly: ReadonlySet<string>): [string, string][] {
  const named = headers.get("connection");
  const alsoHop = named ? new Set(named.toLowerCase().split(",").map((h) => h.trim())) : undefined;
  const out: [string, string][] = [];
  for (const [name, value] of headers) {
    if (HOP_BY_HOP.has(name) || callerOnly.has(name) || alsoHop?.has(name)) continue;
    out.push([name, value]);
  }
  return out;
}

/** The caller's end-to-end headers, then the daemon's token. */
function forwardedHeaders(request: Request, token: string): [string, string][] {
  const out = endToEndHeaders(request.headers, CALLER_ONLY);
  out.push(["authorization", `Bearer ${token}`]);
  return out;
}

function contentType(headers: [string, string][]): string {
  for (const [name, value] of headers) if (name.length === 12 && name.toLowerCase() === "content-type") return value;
  return "";
}

const deadlines = new Deadlines();

/** The proxy's own answer (an error), with the security headers every gateway response carries. */
/** What the session proxy uses; a front also routes another host's sessions (`routing`, hosts/routing.ts). */
export type ProxyDeps = Pick<GatewayContext, "config" | "streams" | "tls" | "upstream"> & Partial<Pick<GatewayContext, "routing">>;

function refuse(ctx: ProxyDeps, status: number, body: unknown): Response {
  return withSecurityHeaders(jsonResponse(status, body), ctx.tls);
}

/**
 * The proxied response or the proxy's own error (404 unknown, 409 another host's session, 503 not running,
 * 502 unreachable, 504 timeout), security headers included (the edge sends it as it is).
 */
export async function proxyRequest(ctx: ProxyDeps, supervisor: Pick<SessionSupervisor, "proxyTargetResuming">, request: Request, url: URL, auth: AuthResult, server?: Server<unknown>): Promise<Response> {
  const afterPrefix = url.pathname.slice(PREFIX.length);
  const slash = afterPrefix.indexOf("/");
  const id = afterPrefix.slice(0, slash);
  // "proxy" is 5 characters; the rest starts with "/" or is empty.
  const rest = afterPrefix.slice(slash + 1 + 5) || "/";
  // A daemon credential reaches its own session only.
  if (auth.family === "dsc" && auth.sessionId !== id) return refuse(ctx, 403, { error: "forbidden", message: "a daemon credential may only reach its own session" });
  if (traversal(rest)) return refuse(ctx, 400, { error: "invalid_path", message: "the proxied path may not contain '.', '..' or encoded separators" });
  const path = `${rest}${url.search}`;
  // The URL parser already percent-encoded anything else; the request line we write carries nothing but this.
  if (!VISIBLE_ASCII.test(path)) return refuse(ctx, 400, { error: "invalid_path", message: "the proxied path may only contain visible ASCII characters" });
  // A joined host's session seen before goes straight to its connection: its row is not read again.
  const known = ctx.routing?.knownSession(id);
  if (known) return await proxyToHost(ctx, known, request, id, path, auth, server);
  // A session its daemon stopped for being idle is resumed first: the client does not notice.
  const target = await supervisor.proxyTargetResuming(id);
  if (!target.ok) {
    // Another host's session (409 here): a front forwards it to a joined host it holds. Asked only then, so
    // a local session's request costs no database read.
    if (target.status === 409 && ctx.routing) {
      let owner: RemoteHost | null;
      try {
        owner = await ctx.routing.session(id);
      } catch (error) {
        if (error instanceof ProtocolError) return refuse(ctx, error.status, error.body());
        throw error;
      }
      if (owner) return await proxyToHost(ctx, owner, request, id, path, auth, server);
    }
    return refuse(ctx, target.status, target.body);
  }
  const daemon = target.daemon;

  // Bodies are capped by the server (API_BODY_LIMIT), so they are read whole and sent with their length.
  const body = request.method === "GET" || request.method === "HEAD" || !request.body ? null : await request.bytes();
  const exchange = ctx.upstream.send({ port: daemon.port, method: request.method, target: path, headers: forwardedHeaders(request, daemon.token), body });
  const timeoutMs = ctx.config.daemon_sessions.proxy_connect_timeout_secs * 1000;
  // Bounds the wait for the daemon's response head (a hung daemon gets a 504, not a hung client), and ends
  // the exchange when the client goes away first.
  const releaseDeadline = deadlines.add(exchange, timeoutMs, request.signal);
  let upstream;
  try {
    upstream = await exchange.response;
  } catch (error) {
    const name = (error as Error).name;
    if (name === "TimeoutError") return refuse(ctx, 504, { error: "gateway_timeout", message: `the daemon of session ${id} did not answer within ${timeoutMs / 1000}s (proxy_connect_timeout_secs)` });
    if (name === "AbortError") return new Response(null, { status: 499 });
    const code = error instanceof UpstreamError ? error.code : "connection failed";
    return refuse(ctx, 502, { error: "bad_gateway", message: `the daemon of session ${id} is unreachable (${code})` });
  } finally {
    releaseDeadline();
  }
  const init = { status: upstream.status, statusText: upstream.statusText, headers: pairsWithSecurityHeaders(upstream.headers, ctx.tls) };
  if (!(upstream.body instanceof ReadableStream) || !contentType(upstream.headers).startsWith("text/event-stream")) return new Response(upstream.body as BodyInit | null, init);
  // A live stream: no idle timeout on the client side, and revoking the credential that opened it ends it.
  // The client going away cancels the body, which ends the exchange.
  server?.timeout(request, 0);
  const stream = ctx.streams.track(auth);
  stream.signal.addEventListener("abort", () => exchange.abort(stream.signal.reason as Error), { once: true });
  exchange.whenOver(() => stream.release());
  return new Response(upstream.body, init);
}

/**
 * A session of a joined host: the request goes over the host's connection to its proxy (which puts the
 * daemon's token in), streamed both ways, SSE included; the client going away resets the exchange, and a
 * revoked credential ends a live stream as on a local session. The caller's credential stays here.
 */
async function proxyToHost(ctx: ProxyDeps, owner: RemoteHost, request: Request, id: string, path: string, auth: AuthResult, server?: Server<unknown>): Promise<Response> {
  const body = request.method === "GET" || request.method === "HEAD" || !request.body ? null : await request.bytes();
  const ended = new AbortController();
  let answer: Response;
  try {
    answer = await owner.connection.fetch(new Request(`http://host/host/v1/sessions/${id}/proxy${path}`, { method: request.method, headers: endToEndHeaders(request.headers, CALLER_ONLY), body, signal: AbortSignal.any([request.signal, ended.signal]) }));
  } catch (error) {
    if (request.signal.aborted) return new Response(null, { status: 499 });
    return refuse(ctx, 503, { error: "host_offline", message: `session ${id} is on host ${owner.host}, which could not be reached (${(error as Error).message.slice(0, 200)})` });
  }
  const init = { status: answer.status, statusText: answer.statusText, headers: pairsWithSecurityHeaders(endToEndHeaders(answer.headers, NOT_RELAYED), ctx.tls) };
  if (!answer.body) return new Response(null, init);
  if (!contentType(init.headers).startsWith("text/event-stream")) {
    // A small body of declared length arrives in one DATA frame right behind its head: read whole, it goes
    // out in the same write as the head and with its length, not pumped through a stream as chunks.
    if (Number(answer.headers.get("content-length") ?? Infinity) > WHOLE_BODY_MAX) return new Response(answer.body, init);
    try {
      return new Response(await answer.bytes(), init);
    } catch (error) {
      if (request.signal.aborted) return new Response(null, { status: 499 });
      return refuse(ctx, 503, { error: "host_offline", message: `session ${id} is on host ${owner.host}, which could not be reached (${(error as Error).message.slice(0, 200)})` });
    }
  }
  server?.timeout(request, 0);
  const stream = ctx.streams.track(auth);
  stream.signal.addEventListener("abort", () => ended.abort(stream.signal.reason), { once: true });
  const reader = answer.body.getReader();
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            stream.release();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          stream.release();
          controller.error(error);
        }
      },
      cancel(reason) {
        // The client went away: the exchange with the host is reset.
        stream.release();
        ended.abort(reason);
        return reader.cancel(reason);
      },
    }),
    init,
  );
}

/** A joined host's answer up to this length (one DATA frame of the host protocol) is relayed whole. */
const WHOLE_BODY_MAX = MAX_DATA;

/** Response headers of a host's answer this front sets itself (framing) or replaces (security headers). */
const NOT_RELAYED = new Set(["content-length"]);
