// Body streams over the mux with per-stream credit: a receiver buffers at most WINDOW bytes of a stream and
// grants credit only for bytes its consumer has read, so a consumer that stops reading stops the producer
// (its ReadableStream's pull is not called) instead of growing memory anywhere on the way.
import { MAX_DATA, MuxProtocolError, WINDOW } from "./frames.ts";

/** The receiving half: DATA frames in, a ReadableStream out, CREDIT granted as the consumer reads. */
export class InBody {
  readonly stream: ReadableStream<Uint8Array>;
  private queue: Uint8Array[] = [];
  /** Bytes received and not yet read by the consumer. */
  buffered = 0;
  private ended = false;
  private settled = false;
  /** Credit the sender still holds (WINDOW minus what it sent and we have not granted back). */
  private senderCredit = WINDOW;
  /** Bytes read by the consumer and not yet granted back. */
  private ungranted = 0;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  /** A read is waiting for the next chunk. */
  private waiting = false;

  constructor(
    private readonly grant: (bytes: number) => void,
    private readonly cancelled: (reason: unknown) => void,
  ) {
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        // With nothing queued a pull only marks a read as waiting; the next DATA or END answers it.
        pull: () => {
          if (this.queue.length > 0 || this.ended) this.deliver();
          else this.waiting = true;
        },
        cancel: (reason) => {
          if (this.settled) return;
          this.settle();
          this.cancelled(reason);
        },
      },
      // Nothing is pulled ahead of the consumer: the window is the only buffer.
      { highWaterMark: 0 },
    );
  }

  get done(): boolean {
    return this.ended || this.settled;
  }

  push(chunk: Uint8Array): void {
    if (this.ended) throw new MuxProtocolError("DATA after END");
    if (chunk.byteLength > this.senderCredit) throw new MuxProtocolError(`DATA of ${chunk.byteLength} bytes exceeds the ${this.senderCredit} bytes of credit granted`);
    this.senderCredit -= chunk.byteLength;
    if (this.settled) return;
    this.queue.push(chunk);
    this.buffered += chunk.byteLength;
    if (this.waiting) this.deliver();
  }

  end(): void {
    if (this.ended) throw new MuxProtocolError("END after END");
    this.ended = true;
    if (this.waiting) this.deliver();
  }

  /** The exchange failed (RESET, connection closed): the consumer's next read fails at once. */
  fail(error: unknown): void {
    if (this.settled) return;
    this.settle();
    this.controller.error(error);
  }

  private deliver(): void {
    this.waiting = false;
    if (this.settled) return;
    const chunk = this.queue.shift();
    if (!chunk) {
      this.settled = true;
      this.controller.close();
      return;
    }
    this.buffered -= chunk.byteLength;
    this.controller.enqueue(chunk);
    this.consumed(chunk.byteLength);
  }

  private settle(): void {
    this.settled = true;
    this.waiting = false;
    this.queue = [];
    this.buffered = 0;
  }

  private consumed(bytes: number): void {
    this.ungranted += bytes;
    // One CREDIT per quarter window read, or as soon as the sender is down to half its window (small SSE
    // events then cost one CREDIT per ~128 KiB, and a sender is never stalled by a grant held back).
    if (this.ended || (this.ungranted < WINDOW / 4 && this.senderCredit >= WINDOW / 2)) return;
    this.senderCredit += this.ungranted;
    this.grant(this.ungranted);
    this.ungranted = 0;
  }
}

/** What a sending pump needs from its stream and connection. */
export interface OutChannel {
  /** Resolves when the stream may send again (credit above 0 and the socket below its high water mark), or the exchange ended. */
  ready(): Promise<void>;
  /** Whether a DATA frame may be sent now; false forever once the exchange ended. */
  canSend(): boolean;
  credit(): number;
  aborted(): boolean;
  data(bytes: Uint8Array): void;
  end(): void;
  /** The body failed while being read: reset the exchange. */
  failed(error: unknown): void;
}

const encoder = new TextEncoder();

/**
 * Sends a body: reads one chunk only when the stream has credit, and sends each DATA frame only when the
 * socket has room, so the producer is pulled no further than the window allows.
 */
export async function pumpBody(reader: ReadableStreamDefaultReader<Uint8Array | string>, out: OutChannel): Promise<void> {
  try {
    for (;;) {
      while (!out.aborted() && !out.canSend()) await out.ready();
      if (out.aborted()) return;
      const { value, done } = await reader.read();
      if (done) {
        if (!out.aborted()) out.end();
        return;
      }
      const chunk = typeof value === "string" ? encoder.encode(value) : value;
      let offset = 0;
      while (offset < chunk.byteLength) {
        while (!out.aborted() && !out.canSend()) await out.ready();
        if (out.aborted()) return;
        const size = Math.min(MAX_DATA, out.credit(), chunk.byteLength - offset);
        out.data(chunk.subarray(offset, offset + size));
        offset += size;
      }
    }
  } catch (error) {
    if (!out.aborted()) out.failed(error);
  }
}
