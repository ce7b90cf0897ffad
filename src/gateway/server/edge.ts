// The outermost request handler: client IP and network policy before any other work, body-size limits,
// the app, then security headers; nothing thrown here ever reaches Bun's HTML error page.
import type { Server } from "bun";
import type { GatewayContext } from "../context.ts";
import { newId } from "../../util/ids.ts";
import { errorResponse, jsonResponse } from "./errors.ts";
import { bodyLimitFor, readLimited, SMALL_BODY_LIMIT, withSecurityHeaders } from "./headers.ts";
import { setRequestMeta } from "./request-meta.ts";

export interface Handler {
  handle(request: Request): Promise<Response> | Response;
}

export function createFetchHandler(ctx: GatewayContext, app: Handler) {
  return async (request: Request, server?: Server<unknown>): Promise<Response> => {
    const requestId = newId("req", ctx.clock.now());
    const done = (res: Response) => withSecurityHeaders(res, ctx.tls);
    try {
      const peer = server?.requestIP(request)?.address ?? "127.0.0.1";
      const ip = ctx.policy.clientIp(peer, request.headers.get("x-forwarded-for"));
      if (!ctx.policy.permits(ip)) return done(jsonResponse(403, { error: "forbidden" }));

      const pathname = new URL(request.url).pathname;
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
      setRequestMeta(req, { ip, requestId });
      return done(await app.handle(req));
    } catch (error) {
      return done(errorResponse(error, undefined, requestId, ctx.logger));
    }
  };
}
