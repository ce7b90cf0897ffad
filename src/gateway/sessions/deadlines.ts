// Request deadlines for the proxy without a timer per request: one coarse sweep aborts whatever is
// overdue. A proxied request pays a Set insert and delete instead of setTimeout/clearTimeout.
const SWEEP_MS = 100;

export class Deadlines {
  private readonly pending = new Set<{ at: number; controller: AbortController }>();
  private timer: ReturnType<typeof setInterval> | undefined;

  /** Aborts `controller` with a TimeoutError once `ms` have passed, unless the returned release runs first. */
  add(controller: AbortController, ms: number): () => void {
    const entry = { at: performance.now() + ms, controller };
    this.pending.add(entry);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), SWEEP_MS);
      this.timer.unref?.();
    }
    return () => {
      this.pending.delete(entry);
    };
  }

  private sweep(): void {
    const now = performance.now();
    for (const entry of this.pending) {
      if (entry.at > now) continue;
      this.pending.delete(entry);
      entry.controller.abort(new DOMException("upstream timeout", "TimeoutError"));
    }
    if (this.pending.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
