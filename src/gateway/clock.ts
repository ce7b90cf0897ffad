// The injected clock: every TTL, lockout and timeout in the gateway reads it, so tests can move time.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  constructor(private ms = Date.parse("2026-01-01T00:00:00Z")) {}
  now(): number {
    return this.ms;
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
