// How long a host agent waits before dialing a front again: exponential from BASE_MS, capped at CAP_MS, with
// jitter (a random point in the upper half of the step), so that many hosts cut off by one front restart do
// not all dial it again in the same instant.

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 30_000;

/** The wait before retry number `attempt` (0 for the first retry after a loss). */
export function retryDelayMs(attempt: number, random: () => number = Math.random, baseMs = BACKOFF_BASE_MS, capMs = BACKOFF_CAP_MS): number {
  const step = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + (step / 2) * random());
}
