// One GET /events response. Sync mode: frames of records replayed from the journal after the client's
// cursor, then live frames (each `id:` is the cursor after its last record, so Last-Event-ID resumes
// exactly). Legacy mode: live engine events only, one SSE event per record, named by type.
// Delivery is pull-driven (the socket's backpressure stops pulls); a live subscriber whose unsent backlog
// outgrows its bound gets a reset event and the stream ends: it must resync from a snapshot.
import type { Cursors } from "./cursors.ts";
import { toWire, type LiveSubscriber, type RecordHub, type WireRecord } from "./hub.ts";
import type { DaemonLimits } from "./limits.ts";
import { isEngineRecordType } from "../protocol/record-types.ts";

export type StreamMode = { kind: "sync"; after: number } | { kind: "legacy" };

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-store",
  "X-Accel-Buffering": "no",
};

export class RecordStream implements LiveSubscriber {
  private position: number;
  private live = false;
  private backlog: WireRecord[] = [];
  private backlogBytes = 0;
  private resetReason: string | null = null;
  private wake: (() => void) | null = null;
  private beat = false;
  private done = false;
  private controller: ReadableStreamDefaultController<string> | null = null;

  constructor(
    private readonly hub: RecordHub,
    private readonly cursors: Cursors,
    private readonly limits: DaemonLimits,
    private readonly mode: StreamMode,
  ) {
    this.position = mode.kind === "sync" ? mode.after : hub.lastSeq;
    if (mode.kind === "legacy") this.goLive();
  }

  response(): Response {
    const stream = new ReadableStream<string>(
      {
        start: (controller) => {
          this.controller = controller;
          controller.enqueue(`retry: 1000\n: ${this.mode.kind} stream\n\n`);
        },
        pull: (controller) => this.pull(controller),
        cancel: () => this.end(),
      },
      { highWaterMark: 0 },
    );
    return new Response(stream, { headers: SSE_HEADERS });
  }

  deliver(records: readonly WireRecord[]): void {
    if (this.done || this.resetReason) return;
    for (const r of records) {
      this.backlog.push(r);
      this.backlogBytes += r.bytes;
    }
    if (this.backlog.length > this.limits.subscriberBufferRecords || this.backlogBytes > this.limits.subscriberBufferBytes) {
      this.resetReason = "the client fell too far behind the live stream";
      this.backlog = [];
      this.backlogBytes = 0;
      this.hub.remove(this);
      // Queued now, not at the next pull: a client that never reads never causes a pull, and the stream
      // (with what the server buffered for it) must end all the same; the reset is the last thing it gets.
      if (this.controller) {
        this.sendReset(this.controller);
        return;
      }
    }
    this.wakeUp();
  }

  heartbeat(): void {
    this.beat = true;
    this.wakeUp();
  }

  close(): void {
    this.end();
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private async pull(controller: ReadableStreamDefaultController<string>): Promise<void> {
    for (;;) {
      if (this.done) {
        try {
          controller.close();
        } catch {
          // Already closed by the client.
        }
        return;
      }
      if (this.resetReason) {
        this.sendReset(controller);
        return;
      }
      if (!this.live && this.replayFrame(controller)) return;
      if (this.backlog.length > 0) {
        this.liveFrame(controller);
        return;
      }
      if (this.beat) {
        this.beat = false;
        controller.enqueue(": heartbeat\n\n");
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** One frame read from the journal (false when none was left); switches to live once the journal is exhausted. */
  private replayFrame(controller: ReadableStreamDefaultController<string>): boolean {
    const rows = this.hub.journal.read(this.position, this.limits.frameRecords);
    const frame: WireRecord[] = [];
    let bytes = 0;
    for (const row of rows) {
      const w = toWire(row);
      if (frame.length > 0 && bytes + w.bytes > this.limits.frameBytes) break;
      frame.push(w);
      bytes += w.bytes;
    }
    if (frame.length > 0) this.send(controller, frame);
    // Going live in the same tick as the last read: every later commit is delivered, none twice.
    if (this.position >= this.hub.lastSeq) this.goLive();
    return frame.length > 0;
  }

  private liveFrame(controller: ReadableStreamDefaultController<string>): void {
    if (this.mode.kind === "legacy") {
      let out = "";
      for (const r of this.backlog) if (isEngineRecordType(r.type) || r.type === "daemon_catalog_changed") out += `event: ${r.type}\ndata: ${r.body}\n\n`;
      this.backlog = [];
      this.backlogBytes = 0;
      if (out) controller.enqueue(out);
      else controller.enqueue(": \n\n");
      return;
    }
    let count = 0;
    let bytes = 0;
    while (count < this.backlog.length && count < this.limits.frameRecords) {
      const b = this.backlog[count]!.bytes;
      if (count > 0 && bytes + b > this.limits.frameBytes) break;
      bytes += b;
      count++;
    }
    const frame = this.backlog.splice(0, count);
    this.backlogBytes -= bytes;
    this.send(controller, frame);
  }

  private send(controller: ReadableStreamDefaultController<string>, frame: WireRecord[]): void {
    const last = frame[frame.length - 1]!.seq;
    this.position = last;
    const text = this.hub.frame(frame[0]!.seq, last, () => {
      let data = '{"records":[';
      for (let i = 0; i < frame.length; i++) data += (i ? "," : "") + frame[i]!.json;
      return `id: ${this.cursors.encode(last)}\nevent: records\ndata: ${data}]}\n\n`;
    });
    controller.enqueue(text);
  }

  private sendReset(controller: ReadableStreamDefaultController<string>): void {
    if (this.done) return;
    this.end();
    try {
      controller.enqueue(`event: reset\ndata: ${JSON.stringify({ code: "reset_required", message: `${this.resetReason}; fetch GET /sync and replay from its cursor` })}\n\n`);
      controller.close();
    } catch {
      // The client already went away.
    }
  }

  private goLive(): void {
    this.live = true;
    this.hub.add(this);
  }

  private end(): void {
    this.done = true;
    this.hub.remove(this);
    this.wakeUp();
  }
}
