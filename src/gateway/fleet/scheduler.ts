// Periodic work (observer rounds, heartbeats) goes through an injected scheduler, so tests fire the
// periods themselves instead of sleeping for seconds.

export interface Scheduler {
  /** Runs `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

/** Real timers; unref'd so a forgotten gateway never keeps the process alive. */
export const realScheduler: Scheduler = {
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref?.();
    return () => clearInterval(timer);
  },
};
