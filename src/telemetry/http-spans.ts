// Server spans for the daemon's and the gateway's routes, wrapped around the outermost fetch handler.
// The span carries the method, a route template (ids replaced, proxied paths cut) and the status: never
// the query string (tokens, cursors), headers or bodies.
import type { Server } from "bun";
import type { Tracer } from "./tracer.ts";

type FetchHandler = (request: Request, server?: Server<unknown>) => Promise<Response>;

/** Prefixed ids (`ses_...`, `tok_...`), long hex/uuid-like runs and other long, digit-bearing names. */
const ID_SEGMENT = /^([a-z]{2,5}_[A-Za-z0-9_-]+|[0-9a-f-]{16,}|(?=.*[0-9]).{24,})$/i;
const MAX_SEGMENTS = 8;

/** `/api/v1/sessions/ses_01J.../proxy/events` -> `/api/v1/sessions/:id/proxy/*`. */
export function routeTemplate(pathname: string): string {
  const out: string[] = [];
  for (const segment of pathname.split("/").slice(1)) {
    if (out.length >= MAX_SEGMENTS) {
      out.push("*");
      break;
    }
    out.push(ID_SEGMENT.test(segment) ? ":id" : segment);
    // What follows a proxy segment is the proxied daemon's path, not a route of this server.
    if (segment === "proxy") {
      out.push("*");
      break;
    }
  }
  return `/${out.join("/")}`;
}

export function traceRequests(tracer: Tracer | undefined, handler: FetchHandler): FetchHandler {
  if (!tracer?.enabled) return handler;
  return (request, server) => {
    const url = new URL(request.url);
    const route = routeTemplate(url.pathname);
    const attributes = { "http.request.method": request.method, "http.route": route, "url.scheme": url.protocol.slice(0, -1) };
    return tracer.run(
      `${request.method} ${route}`,
      attributes,
      async (span) => {
        const response = await handler(request, server);
        span.setAttributes({ "http.response.status_code": response.status });
        if (response.status >= 500) span.fail(String(response.status));
        return response;
      },
      "server",
    );
  };
}
