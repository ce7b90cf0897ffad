// The accepting side of the mux on Bun.serve: `upgradeToMux` in the fetch handler, `muxWebSocket` as the
// server's `websocket` handlers. Bun calls these handlers from its event loop: they never throw.
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import { MuxConnection, type MuxHello, type MuxOptions } from "./connection.ts";
import type { MuxSocket, MuxSocketEvents } from "./socket.ts";
import { MAX_FRAME, SUBPROTOCOL } from "./frames.ts";
import { EarlyEvents } from "./socket-events.ts";

/** The per-socket data `upgradeToMux` gives Bun (`ws.data`). */
export interface MuxSocketData {
  mux: ServerMuxSocket;
}

class ServerMuxSocket implements MuxSocket {
  private ws?: ServerWebSocket<MuxSocketData>;
  private readonly events = new EarlyEvents();
  readonly attached: Promise<void>;
  private attachedNow!: () => void;
  private failedToAttach!: (error: Error) => void;

  constructor() {
    this.attached = new Promise((resolve, reject) => {
      this.attachedNow = resolve;
      this.failedToAttach = reject;
    });
  }

  get bufferedAmount(): number {
    return this.ws?.getBufferedAmount() ?? 0;
  }

  send(bytes: Uint8Array): number {
    return this.ws!.send(bytes);
  }

  cork(sends: () => void): void {
    if (this.ws) this.ws.cork(sends);
    else sends();
  }

  close(code: number, reason: string): void {
    this.ws?.close(code, reason);
  }

  listen(events: MuxSocketEvents): void {
    this.events.listen(events);
  }

  opened(ws: ServerWebSocket<MuxSocketData>): void {
    this.ws = ws;
    this.attachedNow();
  }

  message(data: string | Buffer): void {
    // Each message is a Buffer of its own (Bun does not reuse it), so DATA payloads are queued without a copy.
    this.events.emit((events) => events.message(data));
  }

  closed(code: number, reason: string): void {
    this.failedToAttach(new Error(`the WebSocket closed before it opened (${code} ${reason})`));
    this.events.emit((events) => events.close(code, reason));
  }

  drain(): void {
    this.events.emit((events) => events.drain());
  }
}

/** Bun.serve's `websocket` option for a server that accepts mux connections. */
export const muxWebSocket: WebSocketHandler<MuxSocketData> = {
  maxPayloadLength: MAX_FRAME,
  // Liveness is the mux's own PING/PONG (a dead peer is closed after 3 missed); Bun's idle timer stays as a backstop.
  idleTimeout: 120,
  open: (ws) => ws.data.mux.opened(ws),
  message: (ws, message) => ws.data.mux.message(message),
  close: (ws, code, reason) => ws.data.mux.closed(code, reason),
  drain: (ws) => ws.data.mux.drain(),
};

/**
 * Upgrades `request` (already authenticated by the caller) to a mux WebSocket. Returns a Response when it
 * cannot (not a WebSocket request, or the client does not speak the host protocol's subprotocol);
 * otherwise the fetch handler returns undefined and the promise resolves with the negotiated connection
 * (it rejects when HELLO fails: version mismatch, closed early).
 */
export function upgradeToMux(server: Server<MuxSocketData>, request: Request, hello: MuxHello, options: MuxOptions = {}): Response | Promise<MuxConnection> {
  const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
  if (!offered.includes(SUBPROTOCOL)) {
    return Response.json({ error: "bad_request", message: `a host connects with the WebSocket subprotocol ${SUBPROTOCOL}` }, { status: 400 });
  }
  const socket = new ServerMuxSocket();
  if (!server.upgrade(request, { data: { mux: socket }, headers: { "Sec-WebSocket-Protocol": SUBPROTOCOL } })) {
    return Response.json({ error: "upgrade_required", message: "this route accepts only a WebSocket upgrade" }, { status: 426, headers: { Upgrade: "websocket" } });
  }
  return socket.attached.then(() => MuxConnection.open(socket, hello, options));
}
