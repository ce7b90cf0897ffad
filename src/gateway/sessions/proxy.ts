// The session proxy, `any /api/v1/sessions/:id/proxy/*`, served by the edge before the Elysia app (the app
// would add a routing and body-parsing cost to every proxied byte). The upstream is always 127.0.0.1 and
// the session's registered port: the request path only ever becomes the upstream PATH. The caller's
// gateway token and cookies are replaced by the daemon's own token; hop-by-hop headers are dropped both
// ways; redirects are passed back, never followed; the client going away aborts the upstream request.
import type { Server } from "bun";
import type { AuthResult } from "../auth/bearer.ts";
import type { GatewayContext } from "../context.ts";
import { jsonResponse } from "../server/errors.ts";
import type { SessionSupervisor } from "./supervisor.ts";
import { Deadlines } from "./deadlines.ts";

const PREFIX = "/api/v1/sessions/";
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "proxy-connection"];
/** Request headers that carry the caller's gateway identity or name the gateway itself. */
const CALLER_ONLY = ["authorization", "cookie", "host", "content-length", "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip"];

export function isProxyPath(pathname: string): boolean {
  return pathname.startsWith(PREFIX) && /^\/api\/v1\/sessions\/[^/]+\/proxy(\/|$)/.test(pathname);
}

/** `..`, `.`, encoded slashes/backslashes/dots or NULs in the forwarded path are refused, not normalized. */
function traversal(rest: string): boolean {
  if (/%(2f|5c|2e|00)/i.test(rest) || rest.includes("\\")) return true;
  return rest.split("/").some((seg) => seg === ".." || seg === ".");
}

function stripHopByHop(headers: Headers): void {
  const named = headers.get("connection");
  if (named) for (const h of named.split(",")) headers.delete(h.trim());
  for (const h of HOP_BY_HOP) headers.delete(h);
}

const deadlines = new Deadlines();

/** The proxied response or the proxy's own error (404 unknown, 503 not running, 502 unreachable, 504 timeout). */
export async function proxyRequest(ctx: GatewayContext, supervisor: SessionSupervisor, request: Request, url: URL, auth: AuthResult, server?: Server<unknown>): Promise<Response> {
  const afterPrefix = url.pathname.slice(PREFIX.length);
  const slash = afterPrefix.indexOf("/");
  const id = afterPrefix.slice(0, slash);
  // "proxy" is 5 characters; the rest starts with "/" or is empty.
  const rest = afterPrefix.slice(slash + 1 + 5) || "/";
  // A daemon credential reaches its own session only.
  if (auth.family === "dsc" && auth.sessionId !== id) return jsonResponse(403, { error: "forbidden", message: "a daemon credential may only reach its own session" });
  if (traversal(rest)) return jsonResponse(400, { error: "invalid_path", message: "the proxied path may not contain '.', '..' or encoded separators" });
  const target = supervisor.proxyTarget(id);
  if (!target.ok) return jsonResponse(target.status, target.body);
  const daemon = target.daemon;

  const headers = new Headers(request.headers);
  stripHopByHop(headers);
  for (const h of CALLER_ONLY) headers.delete(h);
  headers.set("authorization", `Bearer ${daemon.token}`);

  // One controller ends the upstream request: the client going away, the deadline, or (for streams) revocation.
  const upstreamAbort = new AbortController();
  const onClientGone = () => upstreamAbort.abort(request.signal.reason);
  request.signal.addEventListener("abort", onClientGone, { once: true });
  const timeoutMs = ctx.config.daemon_sessions.proxy_connect_timeout_secs * 1000;
  // Bounds the wait for the daemon's response headers: a hung daemon gets a 504, not a hung client.
  const releaseDeadline = deadlines.add(upstreamAbort, timeoutMs);
  let upstream: Response;
  try {
    upstream = await fetch(`http://127.0.0.1:${daemon.port}${rest}${url.search}`, {
      method: request.method,
      headers,
      body: request.method === "GET" || request.method === "HEAD" ? undefined : request.body,
      redirect: "manual",
      // Bun: pass compressed bodies through as they are; stream the request body instead of buffering it.
      decompress: false,
      signal: upstreamAbort.signal,
      duplex: "half",
    } as RequestInit);
  } catch (error) {
    request.signal.removeEventListener("abort", onClientGone);
    const reason = upstreamAbort.signal.reason as Error | undefined;
    if (reason?.name === "TimeoutError") return jsonResponse(504, { error: "gateway_timeout", message: `the daemon of session ${id} did not answer within ${timeoutMs / 1000}s (proxy_connect_timeout_secs)` });
    if (request.signal.aborted) return new Response(null, { status: 499 });
    return jsonResponse(502, { error: "bad_gateway", message: `the daemon of session ${id} is unreachable (${(error as NodeJS.ErrnoException).code ?? "connection failed"})` });
  } finally {
    releaseDeadline();
  }
  const out = upstream.headers;
  if (out.has("connection") || out.has("keep-alive") || out.has("transfer-encoding") || out.has("upgrade") || out.has("trailer")) stripHopByHop(out);
  if (!upstream.body || !(out.get("content-type") ?? "").startsWith("text/event-stream")) {
    return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: out });
  }
  // A live stream: no idle timeout on the client side, and revoking the credential that opened it ends it.
  server?.timeout(request, 0);
  const stream = ctx.streams.track(auth);
  stream.signal.addEventListener("abort", () => upstreamAbort.abort(stream.signal.reason), { once: true });
  const done = () => {
    stream.release();
    request.signal.removeEventListener("abort", onClientGone);
  };
  const body = upstream.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: done }));
  request.signal.addEventListener("abort", done, { once: true });
  return new Response(body, { status: upstream.status, statusText: upstream.statusText, headers: out });
}
