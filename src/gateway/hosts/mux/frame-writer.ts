// Frames out to the socket, and the wait for room in it: body producers wait while more than
// SOCKET_HIGH_WATER bytes are buffered. Bun's client WebSocket has no drain event, so a waiting writer
// also looks again every DRAIN_POLL_MS. A send that fails, or a frame the socket dropped, is reported
// once through `failed` (the connection closes: a stream missing a frame would be corrupt).
import { SOCKET_HIGH_WATER } from "./frames.ts";
import type { MuxSocket } from "./socket.ts";

/** How often a writer blocked on a full socket looks again when the socket has no drain event. */
const DRAIN_POLL_MS = 2;

export class FrameWriter {
  private waiters: (() => void)[] = [];
  private drainTimer?: ReturnType<typeof setTimeout>;
  private closed = false;

  constructor(
    private readonly socket: MuxSocket,
    private readonly failed: (reason: string) => void,
  ) {}

  write(bytes: Uint8Array): void {
    if (this.closed) return;
    let sent: void | number;
    try {
      sent = this.socket.send(bytes);
    } catch (error) {
      this.failed(`send failed: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    // Bun's server socket drops a message past its backpressure limit: the stream would be corrupt.
    if (sent === 0) this.failed("the socket dropped a frame (backpressure limit)");
  }

  /** Writes `frames` (calls of write) as one socket write where the socket can cork them. */
  batch(frames: () => void): void {
    if (this.socket.cork) this.socket.cork(frames);
    else frames();
  }

  /** Whether the socket has room for more body bytes. */
  writable(): boolean {
    return this.socket.bufferedAmount <= SOCKET_HIGH_WATER;
  }

  /** Resolves once the socket has room (or the connection closed). */
  whenWritable(): Promise<void> {
    if (this.closed || this.writable()) return Promise.resolve();
    const waiting = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.drainTimer ??= setTimeout(() => this.poll(), DRAIN_POLL_MS);
    return waiting;
  }

  /** The socket's drain event (and the poll): wakes the waiting writers once there is room. */
  drained(): void {
    if (!this.closed && !this.writable()) {
      if (this.waiters.length > 0) this.drainTimer ??= setTimeout(() => this.poll(), DRAIN_POLL_MS);
      return;
    }
    this.wakeAll();
  }

  /** The connection closed: nothing more is sent, and every waiting writer goes on (to find its exchange ended). */
  close(): void {
    this.closed = true;
    clearTimeout(this.drainTimer);
    this.wakeAll();
  }

  private poll(): void {
    this.drainTimer = undefined;
    this.drained();
  }

  private wakeAll(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
