// A host and a front joined by the mux over a real Bun WebSocket on 127.0.0.1 (Bun.serve + new WebSocket).
import type { Server } from "bun";
import { muxWebSocket, upgradeToMux, type MuxSocketData } from "../../../src/gateway/hosts/mux/bun-server.ts";
import type { MuxConnection, MuxHello, MuxOptions } from "../../../src/gateway/hosts/mux/connection.ts";
import { CONNECT_PATH, dial } from "../../../src/gateway/hosts/mux/dial.ts";

export interface MuxPair {
  host: MuxConnection;
  front: MuxConnection;
  server: Server<MuxSocketData>;
  url: string;
  stop(): Promise<void>;
}

export interface FrontOptions {
  hello?: Partial<MuxHello>;
  options?: MuxOptions;
}

/** A Bun server accepting mux connections on CONNECT_PATH; each accepted connection (or its HELLO failure) is reported. */
export function startFront(opts: FrontOptions = {}) {
  const accepted: Promise<MuxConnection>[] = [];
  const waiters: ((c: Promise<MuxConnection>) => void)[] = [];
  const server: Server<MuxSocketData> = Bun.serve<MuxSocketData>({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request, server) {
      if (new URL(request.url).pathname !== CONNECT_PATH) return new Response("not found", { status: 404 });
      const result = upgradeToMux(server, request, { side: "front", name: "front-a", ...opts.hello }, opts.options);
      if (result instanceof Response) return result;
      result.catch(() => {});
      const waiter = waiters.shift();
      if (waiter) waiter(result);
      else accepted.push(result);
      return undefined;
    },
    websocket: muxWebSocket,
  });
  return {
    server,
    url: `http://127.0.0.1:${server.port}${CONNECT_PATH}`,
    /** The next connection the front accepted. */
    next(): Promise<MuxConnection> {
      const ready = accepted.shift();
      return ready ?? new Promise<Promise<MuxConnection>>((resolve) => waiters.push(resolve)).then((p) => p);
    },
  };
}

export async function muxPair(opts: { front?: FrontOptions; host?: Partial<MuxHello>; hostOptions?: MuxOptions } = {}): Promise<MuxPair> {
  const front = startFront(opts.front);
  const host = await dial(front.url, { token: "hst_test", hello: { side: "host", name: "host-a", ...opts.host }, ...opts.hostOptions });
  const frontConnection = await front.next();
  return {
    host,
    front: frontConnection,
    server: front.server,
    url: front.url,
    async stop() {
      host.close();
      frontConnection.close();
      await front.server.stop(true);
    },
  };
}
