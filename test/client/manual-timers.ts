// A manual timer for the streams' silence deadline: time moves only when a test advances it, so a 35 s
// deadline is tested without waiting 35 s (and without timing assertions).
import type { SilenceTimers } from "../../src/client/daemon-sse.ts";
import { StepCap } from "../fakes/step-cap.ts";

export class ManualTimers implements SilenceTimers {
  now = 0;
  /** How many deadlines were armed so far: one per wait for bytes (it grows each time bytes arrived). */
  armed = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { fire: () => void; at: number }>();
  private readonly cap = new StepCap("ManualTimers");

  set(fire: () => void, ms: number): unknown {
    this.cap.step();
    const id = this.nextId++;
    this.pending.set(id, { fire, at: this.now + ms });
    this.armed++;
    return id;
  }

  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Deadlines armed and not yet fired or cleared. */
  get waiting(): number {
    return this.pending.size;
  }

  advance(ms: number): void {
    this.cap.step();
    this.now += ms;
    for (const [id, timer] of [...this.pending]) {
      if (timer.at > this.now) continue;
      this.pending.delete(id);
      timer.fire();
    }
  }
}

/** Polls until `check` holds (10 s at most): waits for I/O on real sockets, never for time to pass. */
export async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited for ${what}`);
    await Bun.sleep(5);
  }
}
