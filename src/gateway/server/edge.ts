// The outermost request handler: client IP and network policy before any other work, then the Host and the
// canonical path (request-target.ts), body-size limits, authentication and scope on that path, the app (whose
// guard checks it routes that same path), then security headers; nothing thrown here ever reaches Bun's HTML
// error page.
import type { Server } from "bun";
import type { GatewayContext } from "../context.ts";
import { newId } from "../../util/ids.ts";
import { errorResponse, jsonResponse } from "./errors.ts";
import { bodyLimitFor, withSecurityHeaders } from "./headers.ts";
import { declaredTooLarge, readBody, tooDeep, type BodyDeadlines } from "./body.ts";
import { isJsonType, jsonNestsDeeper } from "../../util/json-depth.ts";
import { setRequestMeta } from "./request-meta.ts";
import { authorizeApi, setEdgeDecision, type GuardDeps } from "./auth-guard.ts";
import { isProxyPath, proxyRequest, type ProxyDeps } from "../sessions/proxy.ts";
import { readTarget, type HostPolicy } from "./request-target.ts";
import { acceptHostConnect, type ConnectDeps } from "../hosts/connect-route.ts";

/** OAuth endpoints answer with no-store and Pragma: no-cache on every response, refusals at the edge included. */
function oauthPath(url: string): boolean {
  return url.includes("/api/v1/oauth/");
}

export interface Handler {
  handle(request: Request): Promise<Response> | Response;
}

/** What the edge uses: network policy, authentication, the session proxy. */
export type EdgeDeps = GuardDeps & ProxyDeps & ConnectDeps & Pick<GatewayContext, "clock" | "policy" | "tls" | "logger" | "sessions">;

/** `hosts` gives the Host names served (set once the listener knows its port). */
export function createFetchHandler(ctx: EdgeDeps, app: Handler, hosts: () => HostPolicy | undefined, deadlines: BodyDeadlines) {
  return async (request: Request, server?: Server<unknown>): Promise<Response> => {
    // The request id and the client address are worked out only when something reads them (the allow and
    // deny lists, the app's logs, audit and rate limits, an error): the session proxy usually needs neither.
    let requestId: string | undefined;
    const idOf = () => (requestId ??= newId("req", ctx.clock.now()));
    let ip: string | undefined;
    const ipOf = () => (ip ??= ctx.policy.clientIp(server?.requestIP(request)?.address ?? "127.0.0.1", request.headers.get("x-forwarded-for")));
    const done = (res: Response) => withSecurityHeaders(res, ctx.tls, oauthPath(request.url));
    // Bun's idle timeout also runs while a handler works: a stop that waits for its daemon, a resume, a
    // proxied request the daemon answers slowly would be cut unanswered after it. So it is lifted from the
    // moment the request is read until its answer is ready, then put back for the answer and the idle
    // keep-alive connection; a stream (SSE) keeps it lifted (its route asked for that).
    let lifted = false;
    const lift = () => {
      lifted = true;
      server?.timeout(request, 0);
    };
    const answered = (res: Response): Response => {
      if (lifted && !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) server?.timeout(request, deadlines.idleMs / 1000);
      return res;
    };
    try {
      if (ctx.policy.filtering && !ctx.policy.permits(ipOf())) return done(jsonResponse(403, { error: "forbidden" }));

      const policy = hosts();
      if (!policy) return done(jsonResponse(503, { error: "unavailable", message: "the gateway is starting" }));
      const target = readTarget(request, policy, ctx.tls);
      if (target instanceof Response) return done(target);
      const { url, pathname } = target;
      const limit = bodyLimitFor(pathname);
      const oversized = declaredTooLarge(request, limit);
      if (oversized) return done(oversized);
      let auth;
      let proxied;
      if (pathname.startsWith("/api/")) {
        const checked = await authorizeApi(ctx, request, pathname);
        if (checked instanceof Response) return done(checked);
        // A verified host credential: only the connect route yields one (route-access.ts); the upgrade happens here.
        if (checked?.family === "hst") return done(acceptHostConnect(ctx, request, checked, server));
        // The session proxy bypasses the app: every proxied byte would pay for its routing and parsing. It
        // forwards the canonical path; its responses carry their security headers already.
        if (checked && isProxyPath(pathname)) {
          if (!request.body) {
            lift();
            return answered(await proxyRequest(ctx, ctx.sessions, request, url, checked, server));
          }
          proxied = checked;
        }
        auth = checked;
      }
      // The body, whole and under the route's limit, before anything parses it; the connection's idle timeout
      // is lifted from here on, so that a stalled body gets its 408 (the edge's own deadlines) instead of a
      // silent close, and a slow answer gets through.
      lift();
      let body: Uint8Array<ArrayBuffer> | null = null;
      if (request.body) {
        const read = await readBody(request, limit, deadlines);
        if (read instanceof Response) return answered(done(read));
        if (read && isJsonType(request.headers.get("content-type")) && jsonNestsDeeper(read)) return answered(done(tooDeep()));
        body = read;
      }
      if (proxied) return answered(await proxyRequest(ctx, ctx.sessions, body === null ? request : new Request(url, { method: request.method, headers: request.headers, body, signal: request.signal }), url, proxied, server));
      // The app sees only the canonical URL.
      const req = new Request(url, { method: request.method, headers: request.headers, body, signal: request.signal });
      setEdgeDecision(req, pathname, auth);
      // Streams (SSE) lift the idle timeout for their connection once the route accepted them.
      setRequestMeta(req, { ip: ipOf(), requestId: idOf(), origin: target.origin, keepOpen: () => server?.timeout(request, 0) });
      return answered(done(await app.handle(req)));
    } catch (error) {
      return answered(done(errorResponse(error, undefined, idOf(), ctx.logger)));
    }
  };
}
