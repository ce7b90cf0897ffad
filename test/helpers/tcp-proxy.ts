// A TCP proxy on 127.0.0.1 as a partition switch between two peers (a host agent and a front): it forwards
// bytes both ways until told otherwise. pause() stops forwarding and holds the bytes (and holds new
// connections unconnected) until resume() delivers them in order; cut() destroys every open connection
// (terminated at once, as a dropped link: both sides see their socket close); close() stops listening and cuts.
import type { Socket, TCPSocketListener } from "bun";

interface Pair {
  client: Socket<Side>;
  upstream: Socket<Side> | undefined;
  /** Bytes from the client not yet written upstream (no upstream yet, paused, or upstream backpressure). */
  toUpstream: Uint8Array[];
  /** Bytes from upstream not yet written to the client. */
  toClient: Uint8Array[];
  closed: boolean;
}

interface Side {
  pair: Pair;
  role: "client" | "upstream";
}

export class TcpProxy {
  private readonly listener: TCPSocketListener<Side>;
  private readonly pairs = new Set<Pair>();
  private paused = false;

  /**
   * Where new connections go (read at each one): settable, so that a proxy can listen before its target
   * does (a gateway whose `auth.external_url` names the proxy).
   */
  target: { host: string; port: number };

  constructor(target: { host: string; port: number }) {
    this.target = target;
    this.listener = Bun.listen<Side>({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open: (client) => {
          const pair: Pair = { client, upstream: undefined, toUpstream: [], toClient: [], closed: false };
          client.data = { pair, role: "client" };
          this.pairs.add(pair);
          if (!this.paused) this.connectUpstream(pair);
        },
        data: (socket, bytes) => this.received(socket.data.pair, socket.data.role, bytes),
        drain: (socket) => this.flush(socket.data.pair),
        close: (socket) => this.end(socket.data.pair),
        error: (socket) => this.end(socket.data.pair),
      },
    });
  }

  get port(): number {
    return this.listener.port;
  }

  /** http://127.0.0.1:<port>: what a peer dials instead of the target. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Connections open now. */
  get open(): number {
    return this.pairs.size;
  }

  /** Stops forwarding: bytes either way are held, new connections are accepted but not connected on. */
  pause(): void {
    this.paused = true;
  }

  /** Forwards again: held connections are connected on and held bytes delivered in order. */
  resume(): void {
    this.paused = false;
    for (const pair of this.pairs) {
      if (!pair.upstream) this.connectUpstream(pair);
      else this.flush(pair);
    }
  }

  /** Destroys every open connection (both peers see their socket end); held bytes are dropped. */
  cut(): void {
    for (const pair of [...this.pairs]) this.end(pair, true);
  }

  /** Stops listening and cuts every connection. */
  close(): void {
    this.listener.stop(true);
    this.cut();
  }

  private connectUpstream(pair: Pair): void {
    Bun.connect<Side>({
      hostname: this.target.host,
      port: this.target.port,
      socket: {
        open: (upstream) => {
          upstream.data = { pair, role: "upstream" };
          if (pair.closed) return void upstream.end();
          pair.upstream = upstream;
          this.flush(pair);
        },
        data: (socket, bytes) => this.received(socket.data.pair, socket.data.role, bytes),
        drain: (socket) => this.flush(socket.data.pair),
        close: (socket) => this.end(socket.data.pair),
        error: (socket) => this.end(socket.data.pair),
        connectError: () => this.end(pair),
      },
    }).catch(() => this.end(pair));
  }

  private received(pair: Pair, from: "client" | "upstream", bytes: Uint8Array): void {
    if (pair.closed) return;
    // Bun reuses the buffer it hands to `data`: keep a copy.
    (from === "client" ? pair.toUpstream : pair.toClient).push(new Uint8Array(bytes));
    this.flush(pair);
  }

  private flush(pair: Pair): void {
    if (this.paused || pair.closed || !pair.upstream) return;
    write(pair.upstream, pair.toUpstream);
    write(pair.client, pair.toClient);
  }

  /** Ends a connection: one side closing ends the other (`abrupt`: both terminated at once, as cut() does). */
  private end(pair: Pair, abrupt = false): void {
    if (pair.closed) return;
    pair.closed = true;
    this.pairs.delete(pair);
    pair.toUpstream.length = 0;
    pair.toClient.length = 0;
    for (const socket of [pair.client, pair.upstream]) {
      if (abrupt) socket?.terminate();
      else socket?.end();
    }
  }
}

/** Writes queued chunks until the socket takes no more (the rest waits for its drain). */
function write(socket: Socket<Side>, queue: Uint8Array[]): void {
  while (queue.length > 0) {
    const chunk = queue[0]!;
    const written = socket.write(chunk);
    if (written < chunk.length) {
      queue[0] = chunk.subarray(Math.max(written, 0));
      return;
    }
    queue.shift();
  }
}

/** Where `url` points (http only: the tests' peers listen on loopback). */
export function targetOf(url: string): { host: string; port: number } {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port) };
}
