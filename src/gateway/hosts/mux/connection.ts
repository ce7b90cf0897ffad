// MuxConnection: HTTP exchanges in both directions over one WebSocket between a host and a front
// (docs/gateway-hosts.md, Host protocol). Each exchange is a stream: a HEAD each way, body DATA under
// per-stream credit, END; RESET aborts it either way. HELLO negotiates the version, PING/PONG detect a dead
// peer. Nothing here throws into the socket's event loop: a bad frame closes the connection with 1002.
import { VERSION } from "../../../version.ts";
import { InBody, pumpBody, type OutChannel } from "./body.ts";
import {
  CLOSE, FRAME, MAX_STREAMS, MuxProtocolError, SOCKET_HIGH_WATER, WINDOW,
  closeReason, creditOf, decodeFrame, encodeCredit, encodeFrame, encodeJsonFrame, frameName, jsonOf, type Frame,
} from "./frames.ts";
import { HOST_PROTOCOL, helloPayload, negotiate, parseHello, type HelloInfo, type MuxSide } from "./hello.ts";
import { parseRequestHead, parseResponseHead, requestHead, responseHead } from "./heads.ts";

/** The socket a MuxConnection runs on; adapters wrap Bun's server and client WebSockets. */
export interface MuxSocket {
  /** Sends one binary message. Bun's server socket returns 0 when it dropped the message. */
  send(bytes: Uint8Array): void | number;
  readonly bufferedAmount: number;
  close(code: number, reason: string): void;
  /** Called once; events that arrived before are delivered then, in order. */
  listen(events: MuxSocketEvents): void;
}

export interface MuxSocketEvents {
  message(data: Uint8Array | string): void;
  close(code: number, reason: string): void;
  /** The socket's buffer emptied (adapters without a drain event may never call it: writers also poll). */
  drain(): void;
}

export interface MuxHello {
  side: MuxSide;
  /** The host's host_name, or the front's id. */
  name: string;
  /** The versions spoken (default: this build's HOST_PROTOCOL). */
  protocol?: { min: number; max: number };
  agent_version?: string;
}

export interface MuxOptions {
  /** PING every this many ms; 3 unanswered (nothing received for 3 intervals) close the connection. */
  pingIntervalMs?: number;
  /** A serve handler threw: the peer got a 502; this learns why (the peer never does). */
  onHandlerError?: (error: unknown, request: Request) => void;
  /** Concurrent exchanges (both directions); more are refused. */
  maxStreams?: number;
}

export type MuxHandler = (request: Request) => Promise<Response>;

export class MuxClosedError extends Error {
  override name = "MuxClosedError";
  constructor(message: string, readonly code: number, readonly reason: string) {
    super(message);
  }
}

export class MuxResetError extends Error {
  override name = "MuxResetError";
}

const DEFAULT_PING_MS = 5_000;
const MISSED_PINGS = 3;
/** How often a writer blocked on a full socket looks again when the socket has no drain event. */
const DRAIN_POLL_MS = 2;

interface Stream {
  id: number;
  /** Opened by this side (a fetch) or by the peer (served). */
  local: boolean;
  /** The body arriving from the peer; undefined before its HEAD or when it has none. */
  in?: InBody;
  /** Whether the peer still owes us a HEAD (local streams until the response head arrives). */
  awaitingHead: boolean;
  /** Whether the peer's direction is complete (END received, or its HEAD said no body). */
  inDone: boolean;
  outDone: boolean;
  reader?: ReadableStreamDefaultReader<Uint8Array | string>;
  credit: number;
  creditWaiters: (() => void)[];
  ended: boolean;
  respond?: { resolve(response: Response): void; reject(error: unknown): void };
  abort?: AbortController;
  /** A served exchange that arrived before serve() was called. */
  request?: Request;
  /** What aborts this exchange when the fetch's signal fires. */
  unlisten?: () => void;
}

export class MuxConnection {
  /** The negotiated host protocol version. */
  protocol = 0;
  peer!: HelloInfo;
  readonly closed: Promise<{ code: number; reason: string }>;
  private resolveClosed!: (info: { code: number; reason: string }) => void;
  private closeInfo?: { code: number; reason: string };
  private opened = false;
  private openWaiter?: { resolve(): void; reject(error: unknown): void };
  private readonly streams = new Map<number, Stream>();
  private nextId: number;
  /** The highest stream id the peer has opened. */
  private peerLast = 0;
  private handler?: MuxHandler;
  private unserved: Stream[] = [];
  private writeWaiters: (() => void)[] = [];
  private drainTimer?: ReturnType<typeof setTimeout>;
  private heartbeat?: ReturnType<typeof setInterval>;
  private silentTicks = 0;
  private readonly maxStreams: number;

  private constructor(
    private readonly socket: MuxSocket,
    readonly local: HelloInfo,
    private readonly options: MuxOptions,
  ) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    // The dialing side (the host) opens odd stream ids, the accepting side (the front) even ones.
    this.nextId = local.side === "host" ? 1 : 2;
    this.maxStreams = options.maxStreams ?? MAX_STREAMS;
  }

  /**
   * Sends HELLO, waits for the peer's, and resolves at the negotiated version; rejects (and closes with 4001
   * and a reason naming both ranges) when the ranges do not meet, or when the socket closes first.
   */
  static async open(socket: MuxSocket, hello: MuxHello, options: MuxOptions = {}): Promise<MuxConnection> {
    const range = hello.protocol ?? HOST_PROTOCOL;
    const local: HelloInfo = { side: hello.side, name: hello.name, protocol: range.max, min_protocol: range.min, agent_version: hello.agent_version ?? VERSION };
    const connection = new MuxConnection(socket, local, options);
    const ready = new Promise<void>((resolve, reject) => (connection.openWaiter = { resolve, reject }));
    socket.listen({
      message: (data) => connection.receive(data),
      close: (code, reason) => connection.shutdown(code, reason, false),
      drain: () => connection.drained(),
    });
    connection.startHeartbeat();
    connection.write(encodeJsonFrame(FRAME.HELLO, 0, helloPayload(local)));
    await ready;
    return connection;
  }

  get isClosed(): boolean {
    return this.closeInfo !== undefined;
  }

  /** Exchanges open now, both directions. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Sends `request` to the peer's handler; the response body streams in as the caller reads it. */
  fetch(request: Request): Promise<Response> {
    if (this.closeInfo) return Promise.reject(this.closedError());
    if (request.signal.aborted) return Promise.reject(request.signal.reason);
    if (request.bodyUsed) return Promise.reject(new TypeError("the request body was already read"));
    if (this.streams.size >= this.maxStreams) {
      return Promise.reject(new MuxResetError(`too many concurrent exchanges with ${this.peerText()} (at most ${this.maxStreams})`));
    }
    if (this.nextId > 0xffff_fffe) {
      this.close(CLOSE.GOING_AWAY, "stream ids exhausted");
      return Promise.reject(this.closedError());
    }
    let head: Uint8Array;
    try {
      head = encodeJsonFrame(FRAME.HEAD, this.nextId, requestHead(request));
    } catch (error) {
      return Promise.reject(error);
    }
    const id = this.nextId;
    this.nextId += 2;
    const stream = this.newStream(id, true);
    stream.awaitingHead = true;
    stream.outDone = request.body === null;
    const response = new Promise<Response>((resolve, reject) => (stream.respond = { resolve, reject }));
    this.streams.set(id, stream);
    const onAbort = () => this.reset(stream, "aborted by the client", request.signal.reason);
    request.signal.addEventListener("abort", onAbort, { once: true });
    stream.unlisten = () => request.signal.removeEventListener("abort", onAbort);
    this.write(head);
    if (request.body) this.sendBody(stream, request.body);
    return response;
  }

  /** Peer-opened exchanges become Requests for `handler`; exchanges that arrived before are served now. */
  serve(handler: MuxHandler): void {
    this.handler = handler;
    const waiting = this.unserved;
    this.unserved = [];
    for (const stream of waiting) if (!stream.ended) void this.dispatch(stream, stream.request!);
  }

  /** Closes the connection; every open exchange fails at once (fetches reject, bodies error, signals abort). */
  close(code: number = CLOSE.NORMAL, reason = "closed"): void {
    this.shutdown(code, reason, true);
  }

  // --- receiving ---

  private receive(data: Uint8Array | string): void {
    if (this.closeInfo) return;
    try {
      if (typeof data === "string") throw new MuxProtocolError("a text message: the host protocol is binary frames only");
      this.silentTicks = 0;
      this.handle(decodeFrame(data));
    } catch (error) {
      if (error instanceof MuxProtocolError) this.close(CLOSE.PROTOCOL_ERROR, error.message);
      else this.close(CLOSE.INTERNAL, `internal error: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private handle(frame: Frame): void {
    if (!this.opened) {
      if (frame.type !== FRAME.HELLO) throw new MuxProtocolError(`${frameName(frame.type)} before HELLO`);
      return this.hello(frame);
    }
    switch (frame.type) {
      case FRAME.HELLO:
        throw new MuxProtocolError("a second HELLO");
      case FRAME.PING:
        this.write(encodeFrame(FRAME.PONG, 0, frame.payload));
        return;
      case FRAME.PONG:
        jsonOf(frame);
        return;
      case FRAME.HEAD:
        return this.head(frame);
    }
    const stream = this.streams.get(frame.stream);
    if (!stream) return this.unknownStream(frame);
    switch (frame.type) {
      case FRAME.DATA:
        if (!stream.in) throw new MuxProtocolError(`DATA on stream ${frame.stream}, which has no body from this side`);
        stream.in.push(frame.payload);
        return;
      case FRAME.END:
        if (!stream.in) throw new MuxProtocolError(`END on stream ${frame.stream}, which has no body from this side`);
        stream.in.end();
        stream.inDone = true;
        return this.settleIfDone(stream);
      case FRAME.CREDIT: {
        const bytes = creditOf(frame);
        if (stream.credit + bytes > WINDOW) throw new MuxProtocolError(`CREDIT of ${bytes} on stream ${frame.stream} raises its credit above the ${WINDOW}-byte window`);
        stream.credit += bytes;
        const waiters = stream.creditWaiters;
        stream.creditWaiters = [];
        for (const wake of waiters) wake();
        return;
      }
      case FRAME.RESET: {
        const reason = jsonOf(frame).reason;
        const text = typeof reason === "string" ? reason.slice(0, 500) : "no reason given";
        return this.finish(stream, new MuxResetError(`${this.peerText()} reset the exchange: ${text}`));
      }
    }
  }

  private hello(frame: Frame): void {
    this.peer = parseHello(jsonOf(frame));
    const outcome = negotiate(this.local, this.peer);
    if ("error" in outcome) {
      this.openWaiter?.reject(new MuxClosedError(outcome.error, CLOSE.VERSION_MISMATCH, outcome.reason));
      this.openWaiter = undefined;
      this.close(CLOSE.VERSION_MISMATCH, outcome.reason);
      return;
    }
    this.protocol = outcome.protocol;
    this.opened = true;
    this.openWaiter?.resolve();
    this.openWaiter = undefined;
  }

  /** A frame for a stream not open: late frames of an exchange already over are dropped, others are errors. */
  private unknownStream(frame: Frame): void {
    const ours = frame.stream % 2 === (this.local.side === "host" ? 1 : 0);
    const known = ours ? frame.stream < this.nextId : frame.stream <= this.peerLast;
    if (!known) throw new MuxProtocolError(`${frameName(frame.type)} on stream ${frame.stream}, which was never opened`);
  }

  private head(frame: Frame): void {
    const existing = this.streams.get(frame.stream);
    if (existing) {
      if (!existing.local || !existing.awaitingHead) throw new MuxProtocolError(`a second HEAD on stream ${frame.stream}`);
      return this.responseArrived(existing, frame);
    }
    const peerParity = this.local.side === "host" ? 0 : 1;
    if (frame.stream % 2 !== peerParity) return this.unknownStream(frame);
    if (frame.stream <= this.peerLast) throw new MuxProtocolError(`HEAD opening stream ${frame.stream}, not above the last opened ${this.peerLast}`);
    this.peerLast = frame.stream;
    const head = parseRequestHead(jsonOf(frame));
    if (this.streams.size >= this.maxStreams) {
      this.write(encodeJsonFrame(FRAME.RESET, frame.stream, { reason: `too many concurrent exchanges (at most ${this.maxStreams})` }));
      return;
    }
    const stream = this.newStream(frame.stream, false);
    stream.abort = new AbortController();
    if (head.body) stream.in = this.inBody(stream);
    else stream.inDone = true;
    let request: Request;
    try {
      request = new Request(`http://localhost${head.path}`, { method: head.method, headers: head.headers, body: stream.in?.stream ?? null, signal: stream.abort.signal });
    } catch (error) {
      throw new MuxProtocolError(`HEAD on stream ${frame.stream} is not a valid request: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.streams.set(stream.id, stream);
    if (!this.handler) {
      stream.request = request;
      this.unserved.push(stream);
      return;
    }
    void this.dispatch(stream, request);
  }

  private responseArrived(stream: Stream, frame: Frame): void {
    const head = parseResponseHead(jsonOf(frame));
    stream.awaitingHead = false;
    if (head.body) stream.in = this.inBody(stream);
    else stream.inDone = true;
    let response: Response;
    try {
      response = new Response(stream.in?.stream ?? null, { status: head.status, headers: head.headers });
    } catch (error) {
      throw new MuxProtocolError(`HEAD on stream ${frame.stream} is not a valid response: ${error instanceof Error ? error.message : String(error)}`);
    }
    stream.respond?.resolve(response);
    stream.respond = undefined;
    this.settleIfDone(stream);
  }

  private inBody(stream: Stream): InBody {
    return new InBody(
      (bytes) => this.write(encodeCredit(stream.id, bytes)),
      (reason) => this.reset(stream, "cancelled by the reader", reason),
    );
  }

  // --- serving ---

  private async dispatch(stream: Stream, request: Request): Promise<void> {
    let response: Response;
    try {
      response = await this.handler!(request);
      if (!(response instanceof Response)) throw new TypeError("the handler did not return a Response");
      if (response.bodyUsed) throw new TypeError("the handler returned a Response whose body was already read");
    } catch (error) {
      if (stream.ended) return;
      try {
        this.options.onHandlerError?.(error, request);
      } catch {
        // A failing logger must not leave the exchange unanswered.
      }
      response = Response.json(
        { error: "bad_gateway", message: `the ${this.local.side} ${this.local.name} failed to handle ${request.method} ${new URL(request.url).pathname}` },
        { status: 502 },
      );
    }
    if (stream.ended) {
      await response.body?.cancel(stream.abort?.signal.reason).catch(() => {});
      return;
    }
    let head: Uint8Array;
    try {
      head = encodeJsonFrame(FRAME.HEAD, stream.id, responseHead(response));
    } catch (error) {
      await response.body?.cancel(error).catch(() => {});
      this.reset(stream, `the response head is too large: ${error instanceof Error ? error.message : String(error)}`, error);
      return;
    }
    this.write(head);
    if (response.body) this.sendBody(stream, response.body);
    else {
      stream.outDone = true;
      if (!stream.inDone) this.reset(stream, "the response is complete; the rest of the request body is not read", undefined);
      else this.settleIfDone(stream);
    }
  }

  // --- sending ---

  private sendBody(stream: Stream, body: ReadableStream<Uint8Array | string>): void {
    let reader: ReadableStreamDefaultReader<Uint8Array | string>;
    try {
      reader = body.getReader();
    } catch (error) {
      // A body already read or locked (a handler returning a used Response): nothing can be sent.
      this.reset(stream, `the ${stream.local ? "request" : "response"} body cannot be read: ${error instanceof Error ? error.message : String(error)}`, error);
      return;
    }
    stream.reader = reader;
    const out: OutChannel = {
      canSend: () => !stream.ended && stream.credit > 0 && this.writable(),
      ready: () => (stream.credit > 0 ? this.whenWritable() : new Promise<void>((resolve) => stream.creditWaiters.push(resolve))),
      credit: () => stream.credit,
      aborted: () => stream.ended,
      data: (bytes) => {
        stream.credit -= bytes.byteLength;
        this.write(encodeFrame(FRAME.DATA, stream.id, bytes));
      },
      end: () => {
        stream.outDone = true;
        this.write(encodeFrame(FRAME.END, stream.id));
        // A response complete before its request body was read stops the upload (HTTP/2 does the same with
        // RST_STREAM): otherwise the client would wait for credit that never comes.
        if (!stream.local && !stream.inDone) this.reset(stream, "the response is complete; the rest of the request body is not read", undefined);
        else this.settleIfDone(stream);
      },
      failed: (error) => this.reset(stream, `the ${stream.local ? "request" : "response"} body failed: ${error instanceof Error ? error.message : String(error)}`, error),
    };
    void pumpBody(reader, out);
  }

  private writable(): boolean {
    return this.socket.bufferedAmount <= SOCKET_HIGH_WATER;
  }

  private whenWritable(): Promise<void> {
    if (this.closeInfo || this.writable()) return Promise.resolve();
    const waiting = new Promise<void>((resolve) => this.writeWaiters.push(resolve));
    // Bun's client WebSocket has no drain event: look again shortly while anyone waits.
    this.drainTimer ??= setTimeout(() => {
      this.drainTimer = undefined;
      this.drained();
    }, DRAIN_POLL_MS);
    return waiting;
  }

  private drained(): void {
    if (!this.closeInfo && !this.writable()) {
      if (this.writeWaiters.length > 0) this.drainTimer ??= setTimeout(() => {
        this.drainTimer = undefined;
        this.drained();
      }, DRAIN_POLL_MS);
      return;
    }
    const waiters = this.writeWaiters;
    this.writeWaiters = [];
    for (const wake of waiters) wake();
  }

  private write(bytes: Uint8Array): void {
    if (this.closeInfo) return;
    let sent: void | number;
    try {
      sent = this.socket.send(bytes);
    } catch (error) {
      this.shutdown(CLOSE.INTERNAL, `send failed: ${error instanceof Error ? error.message : String(error)}`, true);
      return;
    }
    // Bun's server socket drops a message past its backpressure limit: the stream would be corrupt.
    if (sent === 0) this.shutdown(CLOSE.INTERNAL, "the socket dropped a frame (backpressure limit)", true);
  }

  // --- ending exchanges ---

  private newStream(id: number, local: boolean): Stream {
    return { id, local, awaitingHead: false, inDone: false, outDone: false, credit: WINDOW, creditWaiters: [], ended: false };
  }

  /** Aborts an exchange from this side: RESET to the peer, then everything local fails with `error`. */
  private reset(stream: Stream, reason: string, error: unknown): void {
    if (stream.ended) return;
    this.write(encodeJsonFrame(FRAME.RESET, stream.id, { reason: reason.slice(0, 500) }));
    this.finish(stream, error ?? new MuxResetError(reason));
  }

  private settleIfDone(stream: Stream): void {
    if (stream.ended || stream.awaitingHead || !stream.inDone || !stream.outDone) return;
    stream.ended = true;
    stream.unlisten?.();
    this.streams.delete(stream.id);
  }

  /** Ends an exchange that did not complete: every waiter on it learns `error`. */
  private finish(stream: Stream, error: unknown): void {
    if (stream.ended) return;
    stream.ended = true;
    this.streams.delete(stream.id);
    stream.unlisten?.();
    stream.respond?.reject(error);
    stream.respond = undefined;
    // A body whose END arrived keeps its bytes for its reader: the exchange ended after it was complete.
    if (!stream.inDone) stream.in?.fail(error);
    stream.abort?.abort(error);
    const waiters = stream.creditWaiters;
    stream.creditWaiters = [];
    for (const wake of waiters) wake();
    stream.reader?.cancel(error).catch(() => {});
  }

  private startHeartbeat(): void {
    const interval = this.options.pingIntervalMs ?? DEFAULT_PING_MS;
    this.heartbeat = setInterval(() => {
      if (this.silentTicks >= MISSED_PINGS) {
        const what = this.opened ? `no answer to ${MISSED_PINGS} heartbeats` : "no HELLO";
        this.close(this.opened ? CLOSE.NO_HEARTBEAT : CLOSE.NO_HELLO, `${what} in ${MISSED_PINGS * interval} ms`);
        return;
      }
      this.silentTicks++;
      if (this.opened) this.write(encodeJsonFrame(FRAME.PING, 0, { at: Date.now() }));
    }, interval);
    this.heartbeat.unref?.();
  }

  private shutdown(code: number, reason: string, closeSocket: boolean): void {
    if (this.closeInfo) return;
    this.closeInfo = { code, reason };
    clearInterval(this.heartbeat);
    clearTimeout(this.drainTimer);
    const error = this.closedError();
    this.openWaiter?.reject(error);
    this.openWaiter = undefined;
    for (const stream of [...this.streams.values()]) this.finish(stream, error);
    this.unserved = [];
    const waiters = this.writeWaiters;
    this.writeWaiters = [];
    for (const wake of waiters) wake();
    if (closeSocket) {
      try {
        this.socket.close(code, closeReason(reason));
      } catch {
        // Already closing: the close event or the heartbeat ends it.
      }
    }
    this.resolveClosed(this.closeInfo);
  }

  private closedError(): MuxClosedError {
    const { code, reason } = this.closeInfo!;
    return new MuxClosedError(`the connection to ${this.peerText()} closed (${code}${reason ? `: ${reason}` : ""})`, code, reason);
  }

  private peerText(): string {
    return this.peer ? `the ${this.peer.side} ${this.peer.name}` : `the ${this.local.side === "host" ? "front" : "host"}`;
  }
}
