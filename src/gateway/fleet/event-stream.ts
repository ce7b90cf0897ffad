// One client's fleet event stream (SSE): the retained events after its position, a heartbeat right away
// (it tells the interval) and every heartbeat period, then each new event as it is journaled. Every
// event carries its cursor as the SSE id, so an EventSource client resumes with Last-Event-ID. A client
// that falls further behind than the journal's byte bound, or whose next events retention removed before
// this process read them (a replica far behind the others), gets a `reset` event and the stream ends.
import { isoAt, type Clock } from "../../util/clock.ts";
import type { TrackedStream } from "../server/streams.ts";
import type { FleetJournal, JournalEntry } from "./journal.ts";
import type { FleetLimits } from "./limits.ts";

const encoder = new TextEncoder();

export class FleetStream {
  readonly response: Response;
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  private unsubscribe: (() => void) | null = null;
  private closed = false;

  constructor(
    private readonly journal: FleetJournal,
    private position: number,
    private readonly tracked: TrackedStream,
    private readonly clock: Clock,
    private readonly limits: FleetLimits,
    private readonly ended: (stream: FleetStream) => void,
  ) {
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
          const replay = journal.after(position);
          let text = replay.map(frame).join("");
          if (replay.length > 0) this.position = replay[replay.length - 1]!.seq;
          text += this.heartbeatFrame();
          controller.enqueue(encoder.encode(text));
          this.unsubscribe = journal.subscribe((entry) => this.send(entry));
          tracked.signal.addEventListener("abort", () => this.close(), { once: true });
        },
        cancel: () => this.close(false),
      },
      // Counted in bytes, so desiredSize tells how far the client lags behind.
      { highWaterMark: limits.journalBytes, size: (chunk) => chunk?.byteLength ?? 0 },
    );
    this.response = new Response(body, {
      headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no" },
    });
  }

  heartbeat(): void {
    this.write(this.heartbeatFrame());
  }

  private send(entry: JournalEntry): void {
    if (entry.seq <= this.position) return;
    // Retention removed events this stream had not been sent before this process read them.
    if (entry.prev > this.position) return this.reset();
    this.position = entry.seq;
    this.write(frame(entry));
  }

  private write(text: string): void {
    if (this.closed || !this.controller) return;
    if ((this.controller.desiredSize ?? 0) <= 0) return this.reset();
    this.controller.enqueue(encoder.encode(text));
  }

  /** The stream cannot continue: a `reset` event, then the end. */
  private reset(): void {
    if (this.closed || !this.controller) return;
    const reset = { version: 1, fleet_epoch: this.journal.epoch, cursor: this.journal.cursorAt(this.position), at: isoAt(this.clock.now()), type: "reset", code: "reset_required" };
    this.controller.enqueue(encoder.encode(`data: ${JSON.stringify(reset)}\n\n`));
    this.close();
  }

  private heartbeatFrame(): string {
    const cursor = this.journal.cursorAt(this.position);
    const beat = { version: 1, fleet_epoch: this.journal.epoch, cursor, at: isoAt(this.clock.now()), type: "heartbeat", interval_seconds: this.limits.heartbeatMs / 1000 };
    return `id: ${cursor}\ndata: ${JSON.stringify(beat)}\n\n`;
  }

  /** Ends the stream (revoked credential, reset, gateway stop) or cleans up after the client left. */
  close(endBody = true): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    this.tracked.release();
    this.ended(this);
    if (endBody) {
      try {
        this.controller?.close();
      } catch {
        // already closed by the client
      }
    }
  }
}

function frame(entry: JournalEntry): string {
  return `id: ${entry.cursor}\ndata: ${entry.text}\n\n`;
}
