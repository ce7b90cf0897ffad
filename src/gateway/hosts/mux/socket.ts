// The socket a MuxConnection runs on: one binary WebSocket message per send, events in order. Adapters wrap
// Bun's server (bun-server.ts) and client (dial.ts) WebSockets.

export interface MuxSocket {
  /** Sends one binary message. Bun's server socket returns 0 when it dropped the message. */
  send(bytes: Uint8Array): void | number;
  /** Runs `sends` with the socket corked: their messages leave in one write (Bun's server socket has it). */
  cork?(sends: () => void): void;
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
