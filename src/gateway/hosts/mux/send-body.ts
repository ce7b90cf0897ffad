// The bodies this side sends: pumped under the stream's credit as their producer yields them, or, for a
// response whose declared length fits one DATA frame, read whole and sent with its HEAD and END back to
// back (one socket write where the socket corks), so the peer takes the whole answer in one wakeup.
import { pumpBody, type OutChannel } from "./body.ts";
import type { FrameWriter } from "./frame-writer.ts";
import { FRAME, MAX_DATA, encodeFrame } from "./frames.ts";
import type { Stream, StreamTable } from "./stream-table.ts";

/** What sending needs from its connection. */
export interface SendContext {
  readonly writer: FrameWriter;
  readonly streams: StreamTable;
  /** Aborts an exchange from this side: RESET to the peer, then everything local fails with `error`. */
  reset(stream: Stream, reason: string, error: unknown): void;
}

/** Whether a body declares a length (content-length) that fits one DATA frame. */
export function fitsOneFrame(headers: Headers): boolean {
  const declared = headers.get("content-length");
  return declared !== null && /^\d{1,5}$/.test(declared) && Number(declared) <= MAX_DATA;
}

export class BodySender {
  constructor(private readonly ctx: SendContext) {}

  /** Streams `body`: a chunk is read only when the stream has credit and the socket has room. */
  stream(stream: Stream, body: ReadableStream<Uint8Array | string>): void {
    const { writer, reset } = this.ctx;
    const which = stream.local ? "request" : "response";
    let reader: ReadableStreamDefaultReader<Uint8Array | string>;
    try {
      reader = body.getReader();
    } catch (error) {
      // A body already read or locked (a handler returning a used Response): nothing can be sent.
      reset(stream, `the ${which} body cannot be read: ${error instanceof Error ? error.message : String(error)}`, error);
      return;
    }
    stream.reader = reader;
    const out: OutChannel = {
      canSend: () => !stream.ended && stream.credit > 0 && writer.writable(),
      ready: () => (stream.credit > 0 ? writer.whenWritable() : new Promise<void>((resolve) => stream.creditWaiters.push(resolve))),
      credit: () => stream.credit,
      aborted: () => stream.ended,
      data: (bytes) => {
        stream.credit -= bytes.byteLength;
        writer.write(encodeFrame(FRAME.DATA, stream.id, bytes));
      },
      end: () => {
        writer.write(encodeFrame(FRAME.END, stream.id));
        this.complete(stream);
      },
      failed: (error) => reset(stream, `the ${which} body failed: ${error instanceof Error ? error.message : String(error)}`, error),
    };
    void pumpBody(reader, out);
  }

  /** A response that `fitsOneFrame`: read whole, then HEAD (`head`, encoded), DATA and END back to back. */
  async whole(stream: Stream, head: Uint8Array, response: Response): Promise<void> {
    const { writer, reset } = this.ctx;
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = await response.bytes();
    } catch (error) {
      if (stream.ended) return;
      writer.write(head);
      reset(stream, `the response body failed: ${error instanceof Error ? error.message : String(error)}`, error);
      return;
    }
    if (stream.ended) return;
    if (bytes.byteLength > Math.min(MAX_DATA, stream.credit)) {
      // Longer than declared: sent as any other body.
      writer.write(head);
      this.stream(stream, new Blob([bytes]).stream());
      return;
    }
    writer.batch(() => {
      writer.write(head);
      if (bytes.byteLength > 0) {
        stream.credit -= bytes.byteLength;
        writer.write(encodeFrame(FRAME.DATA, stream.id, bytes));
      }
      writer.write(encodeFrame(FRAME.END, stream.id));
    });
    this.complete(stream);
  }

  /** This side's direction of the exchange is complete (its END sent, or its HEAD said no body). */
  complete(stream: Stream): void {
    stream.outDone = true;
    // A response complete before its request body was read stops the upload (HTTP/2 does the same with
    // RST_STREAM): otherwise the client would wait for credit that never comes.
    if (!stream.local && !stream.inDone) this.ctx.reset(stream, "the response is complete; the rest of the request body is not read", undefined);
    else this.ctx.streams.settleIfDone(stream);
  }
}
