// Export yields to turns. A batch of spans that is ready while a turn runs waits until no turn runs
// (plus a short grace, so the finishing turn's own last steps go first), or at most a bound: handing
// it to the export worker and the worker's encoding and request would otherwise compete with the turn
// for the machine's cores, and a user waits for a turn, not for a trace. Measured on the 2-core machine
// (bench/telemetry): span recording alone adds nothing measurable to a turn; packing and posting the
// batch, and above all the worker exporting while the turn runs, made the +6..+14%.
// A long turn still has its spans sent (the bound is under the batch processor's export timeout, which
// counts from the hand-over to the gate), and stopping the tracer opens the gate for good.
import type { SpanExporter } from "@opentelemetry/sdk-trace";

/** After the last running turn ends, a waiting batch goes this much later (unless a turn started again). */
const GRACE_MS = 50;

export class TurnGate {
  private turns = 0;
  private open = false;
  private waiting: (() => void)[] = [];
  private bound: Timer | undefined;
  private grace: Timer | undefined;

  constructor(
    /** How long a batch ready during a turn may wait. */
    private readonly maxWaitMs: number,
    private readonly graceMs = GRACE_MS,
  ) {}

  turnStarted(): void {
    this.turns++;
    if (this.grace) {
      clearTimeout(this.grace);
      this.grace = undefined;
    }
  }

  turnEnded(): void {
    if (this.turns === 0) return;
    this.turns--;
    if (this.turns === 0 && this.waiting.length > 0) this.armGrace();
  }

  /**
   * Runs `fn` now when no turn runs and nothing waits, else once none runs (after the grace) or after the
   * bound; batches go in the order they came.
   */
  whenIdle(fn: () => void): void {
    if (this.open || (this.turns === 0 && this.waiting.length === 0)) return fn();
    this.waiting.push(fn);
    if (!this.bound) this.bound = unref(setTimeout(() => this.release(), this.maxWaitMs));
  }

  /** No more waiting: what waits goes now, and everything later at once (the tracer is stopping). */
  openForGood(): void {
    this.open = true;
    this.release();
  }

  private armGrace(): void {
    if (this.grace) clearTimeout(this.grace);
    this.grace = unref(
      setTimeout(() => {
        this.grace = undefined;
        if (this.turns === 0) this.release();
      }, this.graceMs),
    );
  }

  private release(): void {
    if (this.bound) clearTimeout(this.bound);
    if (this.grace) clearTimeout(this.grace);
    this.bound = this.grace = undefined;
    for (const fn of this.waiting.splice(0)) fn();
  }
}

/** Timers of the gate never keep a process alive (stopping opens the gate). */
function unref(timer: Timer): Timer {
  timer.unref();
  return timer;
}

/** The exporter under the batch processor: each batch passes the gate, then goes to `inner`. */
export class GatedExporter implements SpanExporter {
  constructor(
    private readonly gate: TurnGate,
    private readonly inner: SpanExporter,
  ) {}

  export(...args: Parameters<SpanExporter["export"]>): void {
    this.gate.whenIdle(() => this.inner.export(...args));
  }

  shutdown(): Promise<void> {
    this.gate.openForGood();
    return this.inner.shutdown();
  }
}
