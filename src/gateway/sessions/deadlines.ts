// Request deadlines for the proxy without a timer or an abort listener per request: one coarse sweep ends
// whatever is overdue, and whatever its client gave up on. A proxied request pays a Set insert and delete
// instead of setTimeout/clearTimeout plus an AbortController and a listener on the request's signal.
const SWEEP_MS = 100;

export interface Abortable {
  abort(error: Error): void;
}

interface Entry {
  at: number;
  target: Abortable;
  /** The client's side of the request: aborted when the client went away. */
  client: AbortSignal | undefined;
}

export class Deadlines {
  private readonly pending = new Set<Entry>();
  private timer: ReturnType<typeof setInterval> | undefined;

  /**
   * Aborts `target` with a TimeoutError once `ms` have passed, or with an AbortError within a sweep of
   * `client` being aborted, unless the returned release runs first.
   */
  add(target: Abortable, ms: number, client?: AbortSignal): () => void {
    const entry: Entry = { at: performance.now() + ms, target, client };
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
      if (entry.client?.aborted) {
        this.pending.delete(entry);
        entry.target.abort(new DOMException("the client went away", "AbortError"));
      } else if (entry.at <= now) {
        this.pending.delete(entry);
        entry.target.abort(new DOMException("upstream timeout", "TimeoutError"));
      }
    }
    if (this.pending.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
