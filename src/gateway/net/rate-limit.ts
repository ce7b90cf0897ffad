// Per-source limiters on the injected clock (spec rule 11), of two kinds (docs/decisions-gateway.md 59):
// - FailureLimiter (login, device approval) counts failed attempts and locks the source out. Its counters
//   live in the database (limit-row.ts), so every replica counts the same failures and refuses the same
//   locked source, and a restart lifts nothing. An attempt is reserved before the guarded work starts, so a
//   burst cannot race past the check (on one replica or spread over several); a success takes its attempt
//   back, and so does an internal error.
// - RateLimiter (the OAuth endpoints) is a request budget per replica, kept in memory: no database round
//   trip per request. Its lockouts are persisted, so restarting the gateway does not lift them.
import { and, eq, gt, isNull, lt, lte, or } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { LimiterConfig } from "../config/types.ts";
import type { GatewayDb } from "../db/open.ts";
import { rateLimitKey } from "../../util/ip.ts";
import { DeferredWrites } from "./deferred-writes.ts";
import { databaseUnavailable } from "../db/unavailable.ts";
import { changeCounter, type Counter, IN_FLIGHT_MAX_MS, readCounter, withoutInFlight } from "./limit-row.ts";

export type FailureLimiterName = "login" | "device";
export type RequestLimiterName = "oauth_resource" | "oauth_token";

/** How long a source that signed in successfully keeps its place at the front of the hash queue. */
const KNOWN_GOOD_MS = 24 * 3600 * 1000;
/** rate_limit_state rows recording a source's last successful sign-in (updated_at is its time). */
const KNOWN_GOOD = "login_known_good";
/** How often each replica deletes the counters that no longer hold anything. */
const PRUNE_EVERY_MS = 60_000;

/** An admitted attempt's settlement; the counter is written before the promise resolves. */
export interface FailureTicket {
  /**
   * Queue priority of this attempt (lower goes first): -1 for a source that signed in successfully in the
   * last day and has not failed since the window began, else its recent failures plus its other attempts in
   * flight. A wrong-password flood thus waits behind everyone else for a hash slot.
   */
  readonly queuePriority: number;
  /** The attempt failed: it counts toward the limit. */
  fail(): Promise<void>;
  /** The attempt succeeded: it does not count. */
  succeed(): Promise<void>;
  /** An internal error: never counts. */
  abort(): Promise<void>;
}

export type FailureAdmission = { allowed: true; ticket: FailureTicket } | { allowed: false; retryAfterSecs: number };

/** Failure counting with lockout, shared by every replica through the database. Throws when the database fails. */
export class FailureLimiter {
  private prunedAt = 0;
  /** Settlements waiting for the database after an outage. */
  readonly deferred = new DeferredWrites();

  constructor(
    readonly name: FailureLimiterName,
    private readonly cfg: LimiterConfig,
    private readonly clock: Clock,
    private readonly db: GatewayDb,
    /** Whether a success earns the source its place at the front of the hash queue (the login limiter). */
    private readonly remembersSuccess = false,
  ) {}

  /** Reserves an attempt for `address` (keyed per IPv4 address or IPv6 /64), or refuses it with Retry-After. */
  async admit(address: string): Promise<FailureAdmission> {
    const key = rateLimitKey(address);
    // Settlements an outage held back are written before this attempt is counted against them.
    if (this.deferred.waiting > 0) await this.deferred.flush();
    const now = this.clock.now();
    if (now - this.prunedAt >= PRUNE_EVERY_MS) await this.prune(now);
    const knownGood = this.remembersSuccess && (await this.signedInRecently(key, now));
    type Verdict = { retryAfterSecs: number } | { queuePriority: number };
    const verdict = await this.reserving(key, now, () => changeCounter<Verdict>(this.db, this.name, key, now, (stored) => {
      const counter = this.current(stored, now);
      if (counter.lockedUntil > now) return { result: { retryAfterSecs: Math.ceil((counter.lockedUntil - now) / 1000) } };
      if (counter.failures.length + counter.inFlight.length >= this.cfg.max_attempts) {
        // Attempts still in flight need not be remembered: whatever they end in, the lock holds until it expires.
        return { write: { failures: [], inFlight: [], lockedUntil: now + this.cfg.lockout_secs * 1000 }, result: { retryAfterSecs: this.cfg.lockout_secs } };
      }
      const queuePriority = knownGood && counter.failures.length === 0 ? -1 : counter.failures.length + counter.inFlight.length;
      return { write: { ...counter, inFlight: [...counter.inFlight, now] }, result: { queuePriority } };
    }));
    if ("retryAfterSecs" in verdict) return { allowed: false, retryAfterSecs: verdict.retryAfterSecs };
    let settled = false;
    const settle = async (outcome: "fail" | "succeed" | "abort") => {
      if (settled) return;
      settled = true;
      const at = this.clock.now();
      await this.deferred.run(() => this.settle(key, now, at, outcome));
    };
    return {
      allowed: true,
      ticket: { queuePriority: verdict.queuePriority, fail: () => settle("fail"), succeed: () => settle("succeed"), abort: () => settle("abort") },
    };
  }

  /**
   * Runs the admission's write. When the database fails it, the reservation may still have been committed
   * (the answer lost with the connection): it is taken back once the database answers, so the outage does
   * not count. Two reservations of one source in the same millisecond look alike: one lost admission may then
   * take back the other's, loosening the limit by one attempt during an outage.
   */
  private async reserving<R>(key: string, startedAt: number, write: () => Promise<R>): Promise<R> {
    try {
      return await write();
    } catch (error) {
      if (databaseUnavailable(error)) this.deferred.defer(() => this.settle(key, startedAt, startedAt, "abort"));
      throw error;
    }
  }

  /** Settles the attempt `startedAt` of `key`: a failure counts, a success or an internal error takes it back. */
  private async settle(key: string, startedAt: number, at: number, outcome: "fail" | "succeed" | "abort"): Promise<void> {
    await changeCounter(this.db, this.name, key, at, (stored) => {
      const rest = withoutInFlight(stored, startedAt);
      // Gone: a lock cleared it (or it was pruned), and the lock decides anyway.
      if (!rest) return { result: undefined };
      return { write: outcome === "fail" ? { ...rest, failures: [...rest.failures, at] } : rest, result: undefined };
    });
    if (outcome === "succeed" && this.remembersSuccess) {
      const { rateLimitState: t } = this.db.t;
      await this.db
        .insert(t)
        .values({ limiter: KNOWN_GOOD, key, attempts: [], updatedAt: at })
        .onConflictDoUpdate({ target: [t.limiter, t.key], set: { updatedAt: at } });
    }
  }

  /** Seconds until `address` may try again, or 0. */
  async lockedFor(address: string): Promise<number> {
    const now = this.clock.now();
    const counter = this.current(await readCounter(this.db, this.name, rateLimitKey(address), now), now);
    return counter.lockedUntil > now ? Math.ceil((counter.lockedUntil - now) / 1000) : 0;
  }

  /** The counter as this limiter sees it now: failures inside the window; an expired lock forgets them. */
  private current(counter: Counter, now: number): Counter {
    if (counter.lockedUntil !== 0 && counter.lockedUntil <= now) return { failures: [], inFlight: counter.inFlight, lockedUntil: 0 };
    const windowStart = now - this.cfg.window_secs * 1000;
    return { ...counter, failures: counter.failures.filter((t) => t > windowStart) };
  }

  private async signedInRecently(key: string, now: number): Promise<boolean> {
    const { rateLimitState: t } = this.db.t;
    const rows = await this.db.select({ at: t.updatedAt }).from(t).where(and(eq(t.limiter, KNOWN_GOOD), eq(t.key, key), gt(t.updatedAt, now - KNOWN_GOOD_MS)));
    return rows.length > 0;
  }

  /** Sources typed at random must not grow the table without bound: counters that hold nothing go. */
  private async prune(now: number): Promise<void> {
    this.prunedAt = now;
    const { rateLimitState: t } = this.db.t;
    const idle = now - Math.max(this.cfg.window_secs * 1000, IN_FLIGHT_MAX_MS);
    await this.db.delete(t).where(and(eq(t.limiter, this.name), lt(t.updatedAt, idle), or(isNull(t.lockedUntil), lte(t.lockedUntil, now))));
    if (this.remembersSuccess) await this.db.delete(t).where(and(eq(t.limiter, KNOWN_GOOD), lt(t.updatedAt, now - KNOWN_GOOD_MS)));
  }
}

export type RequestAdmission = { allowed: true; /** when it was counted (for `refund`) */ at: number } | { allowed: false; retryAfterSecs: number };

interface Entry {
  attempts: number[];
  lockedUntil: number;
}

const PRUNE_ABOVE = 10_000;

/** A request budget per source, per replica: every admitted request counts; going over locks the source out. */
export class RateLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly name: RequestLimiterName,
    private readonly cfg: LimiterConfig,
    private readonly clock: Clock,
    private readonly db?: GatewayDb,
  ) {}

  /** Loads the lockouts persisted before (by this replica or another), still in force. */
  async restore(): Promise<this> {
    if (!this.db) return this;
    const { rateLimitState } = this.db.t;
    for (const row of await this.db.select().from(rateLimitState).where(and(eq(rateLimitState.limiter, this.name), gt(rateLimitState.lockedUntil, this.clock.now())))) {
      this.entries.set(row.key, { attempts: [], lockedUntil: row.lockedUntil ?? 0 });
    }
    return this;
  }

  /** Counts a request from `address` (keyed per IPv4 address or IPv6 /64), or refuses it with Retry-After. */
  admit(address: string): RequestAdmission {
    const key = rateLimitKey(address);
    const now = this.clock.now();
    const entry = this.entry(key, now);
    if (entry.lockedUntil > now) return { allowed: false, retryAfterSecs: Math.ceil((entry.lockedUntil - now) / 1000) };
    if (entry.attempts.length >= this.cfg.max_attempts) {
      this.lock(key, entry, now);
      return { allowed: false, retryAfterSecs: this.cfg.lockout_secs };
    }
    entry.attempts.push(now);
    return { allowed: true, at: now };
  }

  /** Takes back a request admitted at `at` that ended in an internal error: those never count (gateway.md, authentication rule 2). */
  refund(address: string, at: number): void {
    const attempts = this.entries.get(rateLimitKey(address))?.attempts;
    const i = attempts?.lastIndexOf(at) ?? -1;
    if (i >= 0) attempts!.splice(i, 1);
  }

  private entry(key: string, now: number): Entry {
    if (this.entries.size > PRUNE_ABOVE) this.prune(now);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { attempts: [], lockedUntil: 0 };
      this.entries.set(key, entry);
    }
    const windowStart = now - this.cfg.window_secs * 1000;
    while (entry.attempts.length && entry.attempts[0]! <= windowStart) entry.attempts.shift();
    if (entry.lockedUntil && entry.lockedUntil <= now) {
      entry.lockedUntil = 0;
      entry.attempts = [];
    }
    return entry;
  }

  private lock(key: string, entry: Entry, now: number): void {
    entry.lockedUntil = now + this.cfg.lockout_secs * 1000;
    if (!this.db) return;
    const { rateLimitState } = this.db.t;
    // Not awaited: the in-memory lock holds regardless; persistence only carries it across restarts.
    this.db
      .insert(rateLimitState)
      .values({ limiter: this.name, key, attempts: [], lockedUntil: entry.lockedUntil, updatedAt: now })
      .onConflictDoUpdate({ target: [rateLimitState.limiter, rateLimitState.key], set: { lockedUntil: entry.lockedUntil, updatedAt: now } })
      .then(
        () => {},
        () => {},
      );
  }

  private prune(now: number): void {
    const windowStart = now - this.cfg.window_secs * 1000;
    for (const [key, e] of this.entries) {
      if (e.lockedUntil <= now && (e.attempts.at(-1) ?? 0) <= windowStart) this.entries.delete(key);
    }
  }
}

export interface Limiters {
  login: FailureLimiter;
  device: FailureLimiter;
  oauthResource: RateLimiter;
  oauthToken: RateLimiter;
}

export async function createLimiters(auth: { rate_limit: LimiterConfig; device_rate_limit: LimiterConfig; oauth_rate_limit: LimiterConfig; oauth_token_rate_limit: LimiterConfig }, clock: Clock, db: GatewayDb): Promise<Limiters> {
  return {
    login: new FailureLimiter("login", auth.rate_limit, clock, db, true),
    device: new FailureLimiter("device", auth.device_rate_limit, clock, db),
    oauthResource: await new RateLimiter("oauth_resource", auth.oauth_rate_limit, clock, db).restore(),
    oauthToken: await new RateLimiter("oauth_token", auth.oauth_token_rate_limit, clock, db).restore(),
  };
}
