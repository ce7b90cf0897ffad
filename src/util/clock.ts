// Time as a dependency: every TTL, window, lockout, retry backoff and stream timer reads an injected
// clock, so tests drive the fake one (test/fakes/fake-clock.ts) and never wait.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/** A clock reading as RFC 3339 (UTC), as records and API bodies carry it. */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
