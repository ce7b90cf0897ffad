// Authentication failures, counted and logged as one structured line a minute (and at shutdown) instead
// of one line per attempt: a guessing client cannot flood the log, and no line carries a username, a
// token or an address. Kinds: bearer_missing, bearer_invalid, bearer_unavailable (the token store failed),
// login_invalid, login_locked, login_error.
import type { Logger } from "../context.ts";

export const AUTH_FAILURE_INTERVAL_MS = 60_000;

export class AuthFailureCounts {
  private counts = new Map<string, number>();
  private since: number;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number,
    private readonly intervalMs = AUTH_FAILURE_INTERVAL_MS,
  ) {
    this.since = now();
  }

  count(kind: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    if (!this.timer) {
      this.timer = setInterval(() => this.report(), this.intervalMs);
      this.timer.unref?.();
    }
  }

  /** Logs the counts since the last report (nothing when there were none). */
  report(): void {
    const now = this.now();
    if (this.counts.size > 0) {
      const fields: Record<string, number> = { window_secs: Math.round((now - this.since) / 1000), total: 0 };
      for (const [kind, n] of [...this.counts].sort(([a], [b]) => a.localeCompare(b))) {
        fields[kind] = n;
        fields.total! += n;
      }
      logEvent(this.logger, "warn", "auth.failures", fields);
    }
    this.counts.clear();
    this.since = now;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.report();
  }
}

/** A structured event through the logger (its `event` method), or a text line where it has none. */
export function logEvent(logger: Logger, level: "info" | "warn" | "error", event: string, fields: Record<string, string | number | boolean | null>): void {
  if (logger.event) return logger.event(level, event, fields);
  logger[level](`${event} ${Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ")}`);
}
