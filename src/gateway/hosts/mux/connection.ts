// MuxConnection: HTTP exchanges in both directions over one WebSocket between a host and a front
// (docs/gateway-hosts.md, Host protocol). Each exchange is a stream: a HEAD each way, body DATA under
// per-stream credit, END; RESET aborts it either way. HELLO negotiates the version, PING/PONG detect a dead
// peer. Nothing here throws into the socket's event loop: a bad frame closes the connection with 1002.
import { VERSION } from "../../../version.ts";
import { MuxClosedError, MuxResetError } from "./errors.ts";
import { dispatchFrame, type FrameContext } from "./frame-dispatch.ts";
import { FrameWriter } from "./frame-writer.ts";
import { CLOSE, FRAME, MAX_STREAMS, MuxProtocolError, closeReason, decodeFrame, encodeJsonFrame, frameName, jsonOf, type Frame } from "./frames.ts";
import { HOST_PROTOCOL, helloPayload, negotiate, parseHello, type HelloInfo, type MuxSide } from "./hello.ts";
import { requestHead, responseHead } from "./heads.ts";
import type { MuxSocket } from "./socket.ts";
import { BodySender, fitsOneFrame } from "./send-body.ts";
import { StreamTable, type Stream } from "./stream-table.ts";

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

const DEFAULT_PING_MS = 5_000;
const MISSED_PINGS = 3;

export class MuxConnection {
  /** The negotiated host protocol version. */
  protocol = 0;
  peer!: HelloInfo;
  readonly closed: Promise<{ code: number; reason: string }>;
  private resolveClosed!: (info: { code: number; reason: string }) => void;
  private closeInfo?: { code: number; reason: string };
  private opened = false;
  private openWaiter?: { resolve(): void; reject(error: unknown): void };
  private readonly streams: StreamTable;
  private readonly frames: FrameContext;
  private handler?: MuxHandler;
  private unserved: Stream[] = [];
  private readonly writer: FrameWriter;
  private readonly bodies: BodySender;
  private heartbeat?: ReturnType<typeof setInterval>;
  private silentTicks = 0;

  private constructor(
    private readonly socket: MuxSocket,
    readonly local: HelloInfo,
    private readonly options: MuxOptions,
  ) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.streams = new StreamTable(local.side, options.maxStreams ?? MAX_STREAMS);
    this.writer = new FrameWriter(socket, (reason) => this.shutdown(CLOSE.INTERNAL, reason, true));
    this.bodies = new BodySender({ writer: this.writer, streams: this.streams, reset: (stream, reason, error) => this.reset(stream, reason, error) });
    this.frames = {
      streams: this.streams,
      write: (bytes) => this.write(bytes),
      reset: (stream, reason, error) => this.reset(stream, reason, error),
      serve: (stream, request) => this.served(stream, request),
      peerText: () => this.peerText(),
    };
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
      drain: () => connection.writer.drained(),
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
    if (this.streams.full) {
      return Promise.reject(new MuxResetError(`too many concurrent exchanges with ${this.peerText()} (at most ${this.streams.max})`));
    }
    const id = this.streams.nextLocalId();
    if (id === undefined) {
      this.close(CLOSE.GOING_AWAY, "stream ids exhausted");
      return Promise.reject(this.closedError());
    }
    let head: Uint8Array;
    try {
      head = encodeJsonFrame(FRAME.HEAD, id, requestHead(request));
    } catch (error) {
      return Promise.reject(error);
    }
    const stream = this.streams.openLocal();
    stream.outDone = request.body === null;
    const response = new Promise<Response>((resolve, reject) => (stream.respond = { resolve, reject }));
    const onAbort = () => this.reset(stream, "aborted by the client", request.signal.reason);
    request.signal.addEventListener("abort", onAbort, { once: true });
    stream.unlisten = () => request.signal.removeEventListener("abort", onAbort);
    this.write(head);
    if (request.body) this.bodies.stream(stream, request.body);
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
    if (this.opened) return dispatchFrame(this.frames, frame);
    if (frame.type !== FRAME.HELLO) throw new MuxProtocolError(`${frameName(frame.type)} before HELLO`);
    this.hello(frame);
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

  // --- serving ---

  /** A request the peer opened: served now, or when serve() is called. */
  private served(stream: Stream, request: Request): void {
    if (this.handler) {
      void this.dispatch(stream, request);
      return;
    }
    stream.request = request;
    this.unserved.push(stream);
  }

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
    if (response.body && fitsOneFrame(response.headers)) return await this.bodies.whole(stream, head, response);
    this.write(head);
    if (response.body) this.bodies.stream(stream, response.body);
    else this.bodies.complete(stream);
  }

  // --- sending ---

  private write(bytes: Uint8Array): void {
    if (!this.closeInfo) this.writer.write(bytes);
  }

  // --- ending exchanges ---

  /** Aborts an exchange from this side: RESET to the peer, then everything local fails with `error`. */
  private reset(stream: Stream, reason: string, error: unknown): void {
    if (stream.ended) return;
    this.write(encodeJsonFrame(FRAME.RESET, stream.id, { reason: reason.slice(0, 500) }));
    this.streams.finish(stream, error ?? new MuxResetError(reason));
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
    this.writer.close();
    const error = this.closedError();
    this.openWaiter?.reject(error);
    this.openWaiter = undefined;
    for (const stream of this.streams.all()) this.streams.finish(stream, error);
    this.unserved = [];
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

