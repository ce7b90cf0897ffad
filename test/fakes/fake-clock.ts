// A manual clock: time moves only when a test calls advance(); sleepers wake in deadline order.
import type { Clock } from "../../src/util/clock.ts";
import { StepCap } from "./step-cap.ts";

interface Sleeper {
  at: number;
  resolve: () => void;
}

export class FakeClock implements Clock {
  private t: number;
  private sleepers: Sleeper[] = [];
  private waiters: (() => void)[] = [];
  /** Every sleep duration requested, in order (retry delays, stall timers). */
  readonly sleeps: number[] = [];
  private readonly cap: StepCap;

  constructor(start = 1_750_000_000_000, maxSteps?: number) {
    this.t = start;
    this.cap = new StepCap("FakeClock", maxSteps);
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.cap.step();
    this.sleeps.push(ms);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const sleeper: Sleeper = { at: this.t + ms, resolve };
      this.sleepers.push(sleeper);
      signal?.addEventListener(
        "abort",
        () => {
          this.sleepers = this.sleepers.filter((s) => s !== sleeper);
          reject(signal.reason);
        },
        { once: true },
      );
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    });
  }

  /** Resolves once at least one sleeper is pending. */
  async untilSleeping(): Promise<void> {
    while (this.sleepers.length === 0) await new Promise<void>((r) => this.waiters.push(r));
  }

  pending(): number {
    return this.sleepers.length;
  }

  advance(ms: number): void {
    this.cap.step();
    this.t += ms;
    const due = this.sleepers.filter((s) => s.at <= this.t).sort((a, b) => a.at - b.at);
    this.sleepers = this.sleepers.filter((s) => s.at > this.t);
    for (const s of due) s.resolve();
  }
}

/** A clock whose sleeps complete at once and move time forward: for retry loops run to the end. */
export class InstantClock implements Clock {
  readonly sleeps: number[] = [];
  private readonly cap: StepCap;
  constructor(
    private t = 1_750_000_000_000,
    maxSteps?: number,
  ) {
    this.cap = new StepCap("InstantClock", maxSteps);
  }
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.cap.step();
    this.sleeps.push(ms);
    this.t += ms;
  }
}

/**
 * Polls (yielding to the event loop) until `cond` holds; fails after 15 s of wall-clock time rather than
 * hanging. Counted by the clock, not by rounds: a test process that has run many files, on a loaded
 * machine, wakes from a 1 ms timer much later than 1 ms.
 */
export async function until(cond: () => boolean, what = "condition"): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (cond()) return;
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error(`gave up waiting for ${what}`);
}
