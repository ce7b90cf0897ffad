// Long-lived responses (SSE routes, proxied daemon streams) opened with a bearer credential are closed
// when that credential is revoked, by whatever path: the OAuth revoke endpoint, the dashboard, a password
// change, an admin command in another process or another replica, and when it expires (an access token's
// `expiresAt`). Every stream route calls `track(auth)`, ties its response to the returned signal and calls
// `release()` when it ends. Open streams are checked again when the database's change stamp moves: at once
// when the database announces a change (PostgreSQL's notifications), else at the periodic sweep (SQLite's
// counters, read by polling).
import type { AuthResult } from "../auth/bearer.ts";
import type { DbStamp } from "../auth/verified-cache.ts";
import { systemClock, type Clock } from "../../util/clock.ts";

export interface TrackedStream {
  /** Aborted when the credential that opened the stream is revoked or expires (or the gateway stops). */
  signal: AbortSignal;
  release(): void;
}

/** How often open streams look for expiries and for revocations committed by other processes. */
const SWEEP_INTERVAL_MS = 500;

export class OpenStreams {
  private readonly open = new Set<{ auth: AuthResult; controller: AbortController }>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private stampSeen = -1;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(
    private readonly stillValid: (auth: AuthResult) => Promise<boolean>,
    private readonly stamp: DbStamp,
    private readonly clock: Clock = systemClock,
  ) {
    stamp.onChange?.(() => {
      if (this.open.size > 0) void this.sweep();
    });
  }

  get size(): number {
    return this.open.size;
  }

  track(auth: AuthResult): TrackedStream {
    const entry = { auth, controller: new AbortController() };
    this.open.add(entry);
    this.timer ??= setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref?.();
    return {
      signal: entry.controller.signal,
      release: () => {
        this.open.delete(entry);
        if (this.open.size === 0) this.stopTimer();
      },
    };
  }

  /**
   * Closes the streams whose credential expired or is no longer valid; cheap when nothing was written since
   * the last sweep. Sweeps run one at a time; the returned promise settles after a sweep that started after
   * this call (so a caller that just revoked a credential sees its streams closed).
   */
  sweep(): Promise<void> {
    if (this.queued) return this.queued;
    const previous = this.running;
    if (!previous) return this.startSweep();
    this.queued = previous.then(() => {
      this.queued = null;
      return this.startSweep();
    });
    return this.queued;
  }

  private startSweep(): Promise<void> {
    const run = this.sweepOnce().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  private async sweepOnce(): Promise<void> {
    if (this.open.size === 0) return;
    // Expiry needs no database read: a token's lifetime is known from the moment it was verified.
    const now = this.clock.now();
    for (const entry of this.open) {
      if (entry.auth.expiresAt !== undefined && entry.auth.expiresAt <= now) {
        this.open.delete(entry);
        entry.controller.abort(new Error("the credential that opened this stream expired"));
      }
    }
    if (this.open.size === 0) return this.stopTimer();
    const stamp = this.stamp.current();
    if (stamp === this.stampSeen) return;
    this.stampSeen = stamp;
    for (const entry of [...this.open]) {
      let valid: boolean;
      try {
        valid = await this.stillValid(entry.auth);
      } catch {
        continue; // a database hiccup is not a revocation; the next sweep looks again
      }
      if (!valid && this.open.has(entry)) {
        this.open.delete(entry);
        entry.controller.abort(new Error("the credential that opened this stream was revoked"));
      }
    }
    if (this.open.size === 0) this.stopTimer();
  }

  /** Ends every stream (shutdown). */
  closeAll(): void {
    for (const entry of this.open) entry.controller.abort(new Error("the gateway is stopping"));
    this.open.clear();
    this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
