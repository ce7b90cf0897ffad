// The injected clock: every TTL, lockout and timeout in the gateway reads it, so tests can move time.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** advance() calls one FakeClock allows: a loop that keeps moving time fails fast instead of spinning. */
const MAX_ADVANCES = 10_000;

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  private advances = 0;
  constructor(private ms = Date.parse("2026-01-01T00:00:00Z")) {}
  now(): number {
    return this.ms;
  }
  advance(seconds: number): void {
    if (++this.advances > MAX_ADVANCES) throw new Error(`FakeClock: more than ${MAX_ADVANCES} advances; a loop that never ends?`);
    this.ms += seconds * 1000;
  }
}

export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
