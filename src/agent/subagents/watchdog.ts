// The liveness watchdog: every interval it scans the running subagents, and one that has waited on the
// model without any activity for the threshold is reported stalled (it then forces its provider stream to
// reconnect). It runs on the injected clock, only while subagents run, so an idle session holds no timer.
import type { Clock } from "../../util/clock.ts";
import type { StallSettings } from "./settings.ts";

export interface Watched {
  /** Whether it waits on the model now: a subagent running a tool or waiting for a person is not stalled. */
  readonly waitingOnModel: boolean;
  /** Clock time of its last activity (an event, or the end of an announced retry wait). */
  lastActivity: number;
  onStall(idleMs: number): void;
}

export class StallWatchdog {
  private active: AbortController | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly settings: StallSettings,
    private readonly watched: () => Iterable<Watched>,
  ) {}

  /** Starts scanning; a no-op while it already runs. */
  start(): void {
    if (this.active) return;
    const stop = new AbortController();
    this.active = stop;
    void (async () => {
      while (!stop.signal.aborted) {
        try {
          await this.clock.sleep(this.settings.intervalMs, stop.signal);
        } catch {
          return;
        }
        this.scan();
      }
    })();
  }

  stop(): void {
    this.active?.abort();
    this.active = null;
  }

  scan(): void {
    const now = this.clock.now();
    for (const w of this.watched()) {
      if (!w.waitingOnModel) continue;
      const idle = now - w.lastActivity;
      if (idle < this.settings.thresholdMs) continue;
      // Counted afresh from now: the reconnected stream gets a full threshold before the next report.
      w.lastActivity = now;
      w.onStall(idle);
    }
  }
}
