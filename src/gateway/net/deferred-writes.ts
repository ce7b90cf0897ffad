// Settlements of limiter attempts that the database refused because it was unavailable, written again once
// it answers. An attempt admitted just before an outage reserves an in-flight entry; its settlement (often
// the abort of an attempt that failed on the outage itself) is a second write, which fails too. Left in the
// row, the reservation would count toward the limit and, after IN_FLIGHT_MAX_MS, as a failure: internal
// errors would count (gateway.md, authentication rule 2). The same holds for an admission whose write was
// committed but whose answer was lost with the connection: it is taken back too (taking back a reservation
// that was never written changes nothing). A replica that dies with settlements pending
// leaves them to that rule, as it would an attempt in flight.
import { databaseUnavailable } from "../db/unavailable.ts";

const RETRY_EVERY_MS = 1_000;

export class DeferredWrites {
  private pending: (() => Promise<void>)[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;

  /** Runs `write`; when the database is unavailable, keeps it to run again later and resolves. Other errors throw. */
  async run(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (!databaseUnavailable(error)) throw error;
      this.defer(write);
    }
  }

  /** Keeps `write` to run once the database answers again (the caller has just seen it unavailable). */
  defer(write: () => Promise<void>): void {
    this.pending.push(write);
    this.timer ??= setInterval(() => void this.flush(), RETRY_EVERY_MS);
    // A gateway stopping with writes pending does not wait for the database.
    this.timer.unref?.();
  }

  /** How many writes wait for the database. */
  get waiting(): number {
    return this.pending.length;
  }

  /**
   * Tries every waiting write once, in order; stops at the first the database still refuses. A flush already
   * running is joined, so a caller that awaits it sees every write the database took.
   */
  flush(): Promise<void> {
    this.running ??= this.drain().finally(() => (this.running = undefined));
    return this.running;
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      try {
        await this.pending[0]!();
      } catch (error) {
        if (databaseUnavailable(error)) return;
        // A write that fails for another reason would fail forever: it is dropped, like a settlement
        // whose reservation a lock already cleared.
      }
      this.pending.shift();
    }
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
