// The session proxy's HTTP/1.1 client to its daemons: raw loopback sockets (Bun.connect) kept alive in a
// pool per port, request heads written by us, responses framed by response-parser.ts. It replaces fetch on
// the proxy's upstream side: fetch hands each exchange to its own HTTP thread and back, which cost the
// gateway about 15% more CPU per proxied request (docs/decisions-gateway-sessions.md 26). Bun's HTTP
// server still parses every client request in front of authentication; this client only ever talks to a
// daemon port taken from the session registry, and it never follows a redirect.
// An exchange is ended by calling its abort() (the proxy's deadline sweep, the client going away, a
// revoked credential), not through an AbortSignal: a signal per request cost more than the rest of it.
import type { Socket } from "bun";
import { ResponseFramingError, ResponseParser, type ParserEvents, type ResponseHead } from "./response-parser.ts";

/** Idle pooled connections close after this long (well under the daemon's own 30 s idle timeout). */
const IDLE_MS = 5000;
/** Idle connections kept per daemon port; more are closed when released. */
const MAX_IDLE_PER_PORT = 64;
/** A streamed body pauses the daemon's socket once this much waits unread by the client. */
const BODY_HIGH_WATER = 256 * 1024;
/** A body up to this size goes out in the same write as the head (one segment instead of two). */
const COALESCE_BODY = 16 * 1024;
/** Methods sent again on a fresh connection when a reused one turns out closed before any answer. */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

export interface UpstreamRequest {
  port: number;
  method: string;
  /** Path and query, already checked by the proxy. */
  target: string;
  /** End-to-end headers to send (Host and the body's length are the client's own). */
  headers: [string, string][];
  body: Uint8Array | null;
}

export interface UpstreamResponse {
  status: number;
  statusText: string;
  /** End-to-end headers in order, hop-by-hop ones removed. */
  headers: [string, string][];
  /** The whole body when it had arrived with the head, else a stream of it. */
  body: Buffer | ReadableStream<Uint8Array> | null;
}

/** Fails the exchange with an errno-like code (ECONNREFUSED, ECONNRESET, EPROTO) for the proxy's 502 text. */
export class UpstreamError extends Error {
  override name = "UpstreamError";
  constructor(
    message: string,
    readonly code: string,
    /** The connection ended before any byte of an answer: a reused one may have been closed while idle. */
    readonly unanswered = false,
  ) {
    super(message);
  }
}

interface Conn {
  port: number;
  socket: Socket<Conn> | undefined;
  exchange: Exchange | undefined;
  closed: boolean;
  reused: boolean;
  /** The socket was paused for a body the client reads slower than the daemon sends. */
  paused: boolean;
  /** When it went back to the pool (performance.now()). */
  idleSince: number;
  /** Bytes waiting for the socket to drain. */
  pending: Uint8Array[];
}

/** One request and its response on one pooled connection. */
export class Exchange implements ParserEvents {
  readonly response: Promise<UpstreamResponse>;
  conn: Conn | undefined;
  /** Any response byte seen: after that, a failure is never retried. */
  answered = false;
  retried = false;
  readonly parser: ResponseParser;
  private resolve!: (r: UpstreamResponse) => void;
  private reject!: (e: Error) => void;
  private parsedHead: ResponseHead | undefined;
  private whole: Buffer[] | undefined = [];
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private responded = false;
  private over = false;
  private onOver: (() => void) | undefined;

  constructor(
    private readonly client: UpstreamClient,
    readonly request: UpstreamRequest,
    readonly bytes: Uint8Array[],
  ) {
    this.response = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.parser = new ResponseParser(request.method, this);
  }

  get finished(): boolean {
    return this.over;
  }

  /** Ends the exchange: before the head the response promise rejects with `error`, after it the body errors. */
  abort(error: Error): void {
    if (this.over) return;
    if (!this.responded) this.reject(error);
    else this.controller?.error(error);
    this.close(false);
  }

  /**
   * Runs `fn` once the body was read to its end, cancelled or failed (at once when that already happened).
   * One callback per exchange (the proxy's stream release); a second call replaces the first.
   */
  whenOver(fn: () => void): void {
    if (this.over) fn();
    else this.onOver = fn;
  }

  head(head: ResponseHead): void {
    this.parsedHead = head;
  }

  body(bytes: Buffer): void {
    if (this.whole) this.whole.push(bytes);
    else if (this.controller) {
      this.controller.enqueue(bytes);
      if ((this.controller.desiredSize ?? 1) <= 0) this.client.pause(this.conn);
    }
  }

  end(): void {
    if (!this.responded) this.respond();
    else this.controller?.close();
    this.close(this.parsedHead!.reusable && this.parser.rest().length === 0);
  }

  /** After each pushed chunk: a head whose body is still on its way is handed over with a streamed body. */
  afterData(): void {
    if (!this.parsedHead || this.responded || this.over) return;
    const first = this.whole!;
    this.whole = undefined;
    this.respond();
    for (const bytes of first) this.controller!.enqueue(bytes);
  }

  private respond(): void {
    this.responded = true;
    const h = this.parsedHead!;
    let body: UpstreamResponse["body"];
    if (this.whole) {
      // The body ended within the bytes that carried the head (the usual small answer).
      const w = this.whole;
      body = w.length === 0 ? null : w.length === 1 ? w[0]! : Buffer.concat(w);
      this.whole = undefined;
    } else {
      const conn = this.conn;
      body = new ReadableStream<Uint8Array>(
        {
          start: (c) => {
            this.controller = c;
          },
          pull: () => this.client.resume(conn),
          cancel: () => this.close(false),
        },
        { highWaterMark: BODY_HIGH_WATER, size: (chunk) => chunk?.byteLength ?? 0 },
      );
    }
    this.resolve({ status: h.status, statusText: h.statusText, headers: h.headers, body });
  }

  private close(reuse: boolean): void {
    if (this.over) return;
    this.over = true;
    const conn = this.conn;
    if (conn) {
      conn.exchange = undefined;
      if (reuse) this.client.release(conn);
      else this.client.discard(conn);
    }
    this.onOver?.();
  }
}

const encode = (head: string) => Buffer.from(head, "latin1");

export class UpstreamClient {
  private readonly idle = new Map<number, Conn[]>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private readonly idleMs: number;
  private readonly handlers = {
    data: (socket: Socket<Conn>, chunk: Buffer) => this.onData(socket.data, chunk),
    drain: (socket: Socket<Conn>) => this.flush(socket.data),
    close: (socket: Socket<Conn>) => this.onClose(socket.data, new UpstreamError("the daemon closed the connection", "ECONNRESET")),
    error: (socket: Socket<Conn>, error: Error) => this.onClose(socket.data, new UpstreamError(error.message, (error as NodeJS.ErrnoException).code ?? "ECONNRESET")),
  };

  /** `idleMs`: how long a pooled connection may sit unused before it is closed (tests shorten it). */
  constructor(options: { idleMs?: number } = {}) {
    this.idleMs = options.idleMs ?? IDLE_MS;
  }

  /** Sends the request on an idle pooled connection or a new one; the exchange's `response` settles with the head. */
  send(req: UpstreamRequest): Exchange {
    let head = `${req.method} ${req.target} HTTP/1.1\r\nHost: 127.0.0.1:${req.port}\r\n`;
    for (const [name, value] of req.headers) head += `${name}: ${value}\r\n`;
    const body = req.body && req.body.byteLength > 0 ? req.body : undefined;
    if (body) head += `Content-Length: ${body.byteLength}\r\n`;
    else if (req.method !== "GET" && req.method !== "HEAD") head += "Content-Length: 0\r\n";
    head += "\r\n";
    let bytes: Uint8Array[];
    if (!body) bytes = [encode(head)];
    else if (body.byteLength <= COALESCE_BODY) bytes = [Buffer.concat([encode(head), body])];
    else bytes = [encode(head), body];
    const ex = new Exchange(this, req, bytes);
    this.dispatch(ex, false);
    return ex;
  }

  /** Closes every idle connection (the gateway is stopping). */
  close(): void {
    for (const conns of this.idle.values()) for (const c of [...conns]) this.discard(c);
    this.idle.clear();
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private dispatch(ex: Exchange, fresh: boolean): void {
    const conn = fresh ? undefined : this.take(ex.request.port);
    if (conn) return this.attach(conn, ex);
    const port = ex.request.port;
    const c: Conn = { port, socket: undefined, exchange: undefined, closed: false, reused: false, paused: false, idleSince: 0, pending: [] };
    Bun.connect<Conn>({ hostname: "127.0.0.1", port, data: c, socket: this.handlers }).then(
      (socket) => {
        c.socket = socket;
        if (ex.finished) this.release(c);
        else this.attach(c, ex);
      },
      (error: NodeJS.ErrnoException) => ex.abort(new UpstreamError(`cannot connect to 127.0.0.1:${port}`, error.code ?? "ECONNREFUSED")),
    );
  }

  private attach(conn: Conn, ex: Exchange): void {
    conn.exchange = ex;
    ex.conn = conn;
    for (const bytes of ex.bytes) this.write(conn, bytes);
  }

  private take(port: number): Conn | undefined {
    const conn = this.idle.get(port)?.pop();
    if (conn) conn.reused = true;
    return conn;
  }

  private onData(conn: Conn, chunk: Buffer): void {
    const ex = conn.exchange;
    if (!ex) {
      // Bytes nobody asked for on an idle connection: it can no longer be trusted.
      this.discard(conn);
      return;
    }
    ex.answered = true;
    try {
      ex.parser.push(chunk);
      ex.afterData();
    } catch (error) {
      ex.abort(error instanceof ResponseFramingError ? new UpstreamError(error.message, "EPROTO") : (error as Error));
    }
  }

  private onClose(conn: Conn, error: UpstreamError): void {
    if (conn.closed) return;
    conn.closed = true;
    this.unpool(conn);
    const ex = conn.exchange;
    if (!ex) return;
    try {
      ex.parser.eof();
    } catch (framing) {
      if (!ex.answered) {
        // A kept-alive connection the daemon closed while idle: one more try on a fresh one.
        if (conn.reused && !ex.retried && IDEMPOTENT.has(ex.request.method)) {
          ex.retried = true;
          conn.exchange = undefined;
          ex.conn = undefined;
          this.dispatch(ex, true);
          return;
        }
        ex.abort(new UpstreamError(error.message, error.code, true));
      } else ex.abort(framing instanceof ResponseFramingError ? new UpstreamError(framing.message, "EPROTO") : error);
    }
  }

  private write(conn: Conn, bytes: Uint8Array): void {
    if (conn.pending.length) {
      conn.pending.push(bytes);
      return;
    }
    const n = conn.socket?.write(bytes) ?? 0;
    if (n < bytes.byteLength) conn.pending.push(bytes.subarray(Math.max(0, n)));
  }

  private flush(conn: Conn): void {
    while (conn.pending.length) {
      const bytes = conn.pending[0]!;
      const n = conn.socket?.write(bytes) ?? 0;
      if (n < bytes.byteLength) {
        conn.pending[0] = bytes.subarray(Math.max(0, n));
        return;
      }
      conn.pending.shift();
    }
  }

  /** A connection whose exchange ended cleanly goes back to the pool. */
  release(conn: Conn): void {
    if (conn.closed || !conn.socket || conn.pending.length) return this.discard(conn);
    this.resume(conn);
    let conns = this.idle.get(conn.port);
    if (!conns) this.idle.set(conn.port, (conns = []));
    if (conns.length >= MAX_IDLE_PER_PORT) return this.discard(conn);
    conn.idleSince = performance.now();
    conns.push(conn);
    // Idle connections are closed by one sweep, not a socket timer each: re-arming a timer per request
    // showed in the CPU per request.
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(1000, this.idleMs));
    this.sweeper.unref?.();
  }

  pause(conn: Conn | undefined): void {
    if (!conn || conn.paused) return;
    conn.paused = true;
    conn.socket?.pause();
  }

  resume(conn: Conn | undefined): void {
    if (!conn?.paused) return;
    conn.paused = false;
    conn.socket?.resume();
  }

  private sweep(): void {
    const cutoff = performance.now() - this.idleMs;
    let left = 0;
    for (const conns of this.idle.values()) {
      // The oldest idle connections are at the bottom of each stack.
      while (conns.length && conns[0]!.idleSince < cutoff) this.discard(conns[0]!);
      left += conns.length;
    }
    if (left === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  discard(conn: Conn): void {
    this.unpool(conn);
    if (!conn.closed) {
      conn.closed = true;
      conn.socket?.terminate();
    }
  }

  private unpool(conn: Conn): void {
    const conns = this.idle.get(conn.port);
    const i = conns ? conns.indexOf(conn) : -1;
    if (i >= 0) conns!.splice(i, 1);
  }
}
