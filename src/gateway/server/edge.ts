// The outermost request handler: client IP and network policy before any other work, body-size limits,
// the app, then security headers; nothing thrown here ever reaches Bun's HTML error page.
import type { Server } from "bun";
import type { GatewayContext } from "../context.ts";
import { newId } from "../../util/ids.ts";
import { errorResponse, jsonResponse } from "./errors.ts";
import { bodyLimitFor, readLimited, SMALL_BODY_LIMIT, withSecurityHeaders } from "./headers.ts";
import { setRequestMeta } from "./request-meta.ts";
import { UNAUTHORIZED_BODY } from "../auth/bearer.ts";
import { routeAccess } from "../auth/route-access.ts";
import { insufficientScope, setVerifiedAuth } from "./auth-guard.ts";
import { isProxyPath, proxyRequest } from "../sessions/proxy.ts";
import type { AuthResult } from "../auth/bearer.ts";

const UNAUTHORIZED_HEADERS = { "WWW-Authenticate": 'Bearer error="invalid_token"' };

/**
 * Authentication and the route's scope check for an /api request, before the app runs: a refusal as a
 * response (no exception: rejecting a bad token costs about what accepting a good one does), else the
 * caller (undefined on a public route, or an optional one called without a token).
 */
function authorizeApi(ctx: GatewayContext, request: Request, pathname: string): Response | AuthResult | undefined {
  const access = routeAccess(pathname);
  if (access.kind === "public") return undefined;
  const header = request.headers.get("authorization");
  if (header === null && access.kind === "optional") return undefined;
  const auth = ctx.bearer.check(header);
  if (auth === "unauthorized") return jsonResponse(401, UNAUTHORIZED_BODY, UNAUTHORIZED_HEADERS);
  if (auth === "unavailable") return jsonResponse(503, { error: "unavailable", message: "authentication is temporarily unavailable" });
  if (access.kind === "scoped" && !access.anyOf.some((s) => auth.scopes.includes(s))) {
    const error = insufficientScope(access.anyOf);
    return jsonResponse(error.status, error.body(), error.headers);
  }
  return auth;
}

/** OAuth endpoints answer with no-store and Pragma: no-cache on every response, refusals at the edge included. */
function oauthPath(url: string): boolean {
  return url.includes("/api/v1/oauth/");
}

export interface Handler {
  handle(request: Request): Promise<Response> | Response;
}

export function createFetchHandler(ctx: GatewayContext, app: Handler) {
  return async (request: Request, server?: Server<unknown>): Promise<Response> => {
    // The request id and the client address are worked out only when something reads them (the allow and
    // deny lists, the app's logs, audit and rate limits, an error): the session proxy usually needs neither.
    let requestId: string | undefined;
    const idOf = () => (requestId ??= newId("req", ctx.clock.now()));
    let ip: string | undefined;
    const ipOf = () => (ip ??= ctx.policy.clientIp(server?.requestIP(request)?.address ?? "127.0.0.1", request.headers.get("x-forwarded-for")));
    const done = (res: Response) => withSecurityHeaders(res, ctx.tls, oauthPath(request.url));
    try {
      if (ctx.policy.filtering && !ctx.policy.permits(ipOf())) return done(jsonResponse(403, { error: "forbidden" }));

      const url = new URL(request.url);
      const pathname = url.pathname;
      const limit = bodyLimitFor(pathname);
      const declared = request.headers.get("content-length");
      if (declared !== null && !(Number(declared) <= limit)) return done(jsonResponse(413, { error: "payload_too_large", message: `request bodies on this route are limited to ${limit} bytes` }));
      let req = request;
      if (declared === null && request.body && limit === SMALL_BODY_LIMIT) {
        // A chunked body has no declared length: read it under the cap before anything parses it.
        const body = await readLimited(request, limit);
        if (!body) return done(jsonResponse(413, { error: "payload_too_large", message: `request bodies on this route are limited to ${limit} bytes` }));
        req = new Request(request.url, { method: request.method, headers: request.headers, body: body as Uint8Array<ArrayBuffer>, signal: request.signal });
      }
      if (pathname.startsWith("/api/")) {
        const checked = authorizeApi(ctx, req, pathname);
        if (checked instanceof Response) return done(checked);
        // The session proxy bypasses the app: every proxied byte would pay for its routing and parsing. Its
        // responses carry their security headers already.
        if (checked && isProxyPath(pathname)) return await proxyRequest(ctx, ctx.sessions, req, url, checked, server);
        if (checked) setVerifiedAuth(req, checked);
      }
      // Streams (SSE) lift the idle timeout for their connection once the route accepted them.
      setRequestMeta(req, { ip: ipOf(), requestId: idOf(), keepOpen: () => server?.timeout(request, 0) });
      return done(await app.handle(req));
    } catch (error) {
      return done(errorResponse(error, undefined, idOf(), ctx.logger));
    }
  };
}
