// The dialing side of the mux (a host agent): a WebSocket to a front's connect route with the host's
// credential, wrapped as a MuxSocket and opened with HELLO.
import tls from "node:tls";
import { fingerprintOfDer, isLoopbackHost } from "../../../client/tls-pin.ts";
import { MuxConnection, type MuxHello, type MuxOptions } from "./connection.ts";
import type { MuxSocket, MuxSocketEvents } from "./socket.ts";
import { SUBPROTOCOL } from "./frames.ts";
import { EarlyEvents } from "./socket-events.ts";

/** The front route a host dials (design: GET /api/v1/hosts/connect, Bearer hst_..., subprotocol agent-host.1). */
export const CONNECT_PATH = "/api/v1/hosts/connect";

export interface DialOptions extends MuxOptions {
  /** The host credential (hst_...), sent as a Bearer token. */
  token: string;
  hello: MuxHello;
  /**
   * Trust for https fronts beyond the system CAs: `ca` (PEM) to accept that certificate or CA, and
   * `fingerprint` (SHA-256 of the DER, uppercase hex with colons) to accept exactly that certificate.
   */
  tls?: { ca?: string; fingerprint?: string };
  /** Give up on the WebSocket handshake after this many ms (default 10 s). */
  timeoutMs?: number;
}

/** Bun's client WebSocket beyond the DOM type: terminate() drops the connection without a closing handshake. */
type BunClientWebSocket = WebSocket & { terminate(): void; send(data: Uint8Array): void };

class ClientMuxSocket implements MuxSocket {
  private readonly events = new EarlyEvents();

  constructor(private readonly ws: BunClientWebSocket) {
    ws.onmessage = (event) => {
      const data = event.data as ArrayBuffer | string;
      const bytes = typeof data === "string" ? data : new Uint8Array(data);
      this.events.emit((events) => events.message(bytes));
    };
    ws.onclose = (event) => this.events.emit((events) => events.close(event.code, event.reason));
  }

  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  send(bytes: Uint8Array): void {
    this.ws.send(bytes);
  }

  close(code: number, reason: string): void {
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
    }
  }

  listen(events: MuxSocketEvents): void {
    this.events.listen(events);
  }
}

/** `url` with the ws scheme matching its http one; plaintext only to loopback (the token must not cross a network in clear). */
export function connectUrl(front: string): URL {
  const url = new URL(front);
  if (url.protocol === "https:") url.protocol = "wss:";
  else if (url.protocol === "http:") url.protocol = "ws:";
  if (url.protocol === "ws:" && !isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ""))) {
    throw new Error(`plaintext ${front} is allowed only to loopback (127.0.0.1, ::1, localhost); use https://`);
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:") throw new Error(`unsupported scheme ${url.protocol} in ${front} (use https://, or http:// to loopback)`);
  return url;
}

/** Opens a WebSocket to `front` (a full URL, usually the front's base + CONNECT_PATH) and negotiates the mux. */
export async function dial(front: string, options: DialOptions): Promise<MuxConnection> {
  const url = connectUrl(front);
  const pin = options.tls?.fingerprint?.toUpperCase();
  const ws = new WebSocket(url.href, {
    headers: { Authorization: `Bearer ${options.token}` },
    protocols: [SUBPROTOCOL],
    tls: options.tls?.ca || pin ? {
      ca: options.tls?.ca,
      checkServerIdentity: (host: string, cert: tls.PeerCertificate) => {
        const identity = tls.checkServerIdentity(host, cert);
        if (identity) return identity;
        const seen = cert.raw ? fingerprintOfDer(cert.raw) : cert.fingerprint256;
        return pin && seen !== pin ? new Error(`certificate fingerprint ${seen} is not the pinned ${pin}`) : undefined;
      },
    } : undefined,
  } as unknown as string[]) as BunClientWebSocket;
  ws.binaryType = "arraybuffer";
  const socket = new ClientMuxSocket(ws);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`cannot connect to ${url.origin}: no WebSocket handshake within ${options.timeoutMs ?? 10_000} ms`));
    }, options.timeoutMs ?? 10_000);
    ws.onopen = () => {
      clearTimeout(timer);
      resolve();
    };
    ws.onerror = (event) => {
      clearTimeout(timer);
      // Bun's message names the URL and the status ("Expected 101 status code: 401"); the token is in no part of it.
      reject(new Error(`cannot connect to ${url.origin}${url.pathname}: ${(event as ErrorEvent).message || "connection failed"}`));
    };
  });
  ws.onerror = null;
  return MuxConnection.open(socket, options.hello, options);
}
