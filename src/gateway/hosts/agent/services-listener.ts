// "The gateway" as the daemons of a host agent reach it: a listener on 127.0.0.1 (the bootstrap file's
// gateway_url) that forwards `/api/v1/services/*`, and nothing else, over the mux to a front, with the
// daemon's own bearer: the front authenticates the daemon credential as it does for its own daemons. The
// host agent adds no authority of its own; anything else on this port is 404.
import type { Server } from "bun";
import { ProtocolError } from "../../../protocol/errors.ts";
import type { StoreTransport } from "./remote-store.ts";

export const SERVICES_PREFIX = "/api/v1/services/";
/** Headers a daemon's request keeps on its way to the front: what the services routes read. */
const FORWARDED = ["authorization", "content-type", "accept", "last-event-id", "user-agent", "traceparent", "tracestate"];

function error(status: number, code: string, message: string): Response {
  return Response.json({ error: code, message }, { status });
}

export class ServicesListener {
  private server: Server<unknown> | undefined;

  constructor(private readonly fronts: StoreTransport) {}

  /** Listens on 127.0.0.1 on a free port; returns the URL daemons are given. */
  start(): string {
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: (request) => this.forward(request) });
    return `http://127.0.0.1:${this.server.port}`;
  }

  stop(): void {
    void this.server?.stop(true);
    this.server = undefined;
  }

  private async forward(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(SERVICES_PREFIX)) return error(404, "not_found", "this host agent forwards only /api/v1/services/* to the gateway");
    const headers = new Headers();
    for (const name of FORWARDED) {
      const value = request.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    // Read once: a failover to another front sends the same bytes again.
    const body = request.method === "GET" || request.method === "HEAD" || !request.body ? null : await request.bytes();
    try {
      const response = await this.fronts.fetch(() => new Request(`http://front${url.pathname}${url.search}`, { method: request.method, headers, body, signal: request.signal }));
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (failure) {
      if (failure instanceof ProtocolError) return Response.json(failure.body(), { status: failure.status });
      if ((failure as Error).name === "AbortError") return new Response(null, { status: 499 });
      return error(502, "bad_gateway", `the gateway front did not answer: ${(failure as Error).message}`);
    }
  }
}
