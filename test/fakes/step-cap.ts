// A step cap for fake clocks and timers: a loop that keeps sleeping or moving fake time (a retry limit
// removed, a timer that re-arms itself) would otherwise spin without ever yielding to the test runner's
// timeout and hang the suite. Past the cap the clock throws, so the test fails at once and says why.

/** Sleeps, timers or advances one fake clock allows; far above what any test needs. */
export const DEFAULT_MAX_STEPS = 10_000;

export class RunawayLoopError extends Error {
  override name = "RunawayLoopError";
}

export class StepCap {
  private steps = 0;
  constructor(
    private readonly what: string,
    private readonly max = DEFAULT_MAX_STEPS,
  ) {}

  /** Counts one step; throws RunawayLoopError past the cap. */
  step(): void {
    if (++this.steps > this.max) {
      throw new RunawayLoopError(`${this.what}: more than ${this.max} steps of fake time; a loop that never ends (a retry or timer limit missing?)`);
    }
  }
}
