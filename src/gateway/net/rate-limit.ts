// Per-source rate limiters with lockout, on the injected clock. Attempts are reserved before the guarded
// work starts, so a parallel burst counts every attempt instead of racing past the check.
// Lockouts are persisted, so restarting the gateway does not lift them.
import { and, eq, gt } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { LimiterConfig } from "../config/types.ts";
import type { GatewayDb } from "../db/open.ts";
import { rateLimitKey } from "../../util/ip.ts";

export type LimiterName = "login" | "device" | "oauth_resource" | "oauth_token";

interface Entry {
  attempts: number[];
  inFlight: number;
  lockedUntil: number;
  lastSuccessAt?: number;
}

/** How long a source that signed in successfully keeps its place at the front of the hash queue. */
const KNOWN_GOOD_MS = 24 * 3600 * 1000;

export type Admission = { allowed: true; ticket: Ticket } | { allowed: false; retryAfterSecs: number };

export interface Ticket {
  /** The attempt failed: it counts toward the limit. */
  fail(): void;
  /** The attempt succeeded (failure-counting limiters forget it). */
  succeed(): void;
  /** An internal error: never counts. */
  abort(): void;
}

const PRUNE_ABOVE = 10_000;

export class RateLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly name: LimiterName,
    private readonly cfg: LimiterConfig,
    private readonly clock: Clock,
    /** `failures`: only failed attempts count (login, device); `requests`: every admitted request counts. */
    private readonly counts: "failures" | "requests",
    private readonly db?: GatewayDb,
  ) {}

  /** Loads the lockouts a previous run persisted (still in force). */
  async restore(): Promise<this> {
    if (!this.db) return this;
    const { rateLimitState } = this.db.t;
    for (const row of await this.db.select().from(rateLimitState).where(and(eq(rateLimitState.limiter, this.name), gt(rateLimitState.lockedUntil, this.clock.now())))) {
      this.entries.set(row.key, { attempts: [], inFlight: 0, lockedUntil: row.lockedUntil ?? 0 });
    }
    return this;
  }

  /** Reserves an attempt for `address` (keyed per IPv4 address or IPv6 /64), or refuses with Retry-After. */
  admit(address: string): Admission {
    const key = rateLimitKey(address);
    const now = this.clock.now();
    const entry = this.entry(key, now);
    if (entry.lockedUntil > now) return { allowed: false, retryAfterSecs: Math.ceil((entry.lockedUntil - now) / 1000) };
    if (entry.attempts.length + entry.inFlight >= this.cfg.max_attempts) {
      this.lock(key, entry, now);
      return { allowed: false, retryAfterSecs: this.cfg.lockout_secs };
    }
    if (this.counts === "requests") {
      entry.attempts.push(now);
      return { allowed: true, ticket: { fail() {}, succeed() {}, abort() {} } };
    }
    entry.inFlight++;
    let settled = false;
    const settle = (failed: boolean) => {
      if (settled) return;
      settled = true;
      entry.inFlight--;
      if (failed) entry.attempts.push(this.clock.now());
      else if (succeeded) entry.lastSuccessAt = this.clock.now();
    };
    let succeeded = false;
    return {
      allowed: true,
      ticket: {
        fail: () => settle(true),
        succeed: () => {
          succeeded = true;
          settle(false);
        },
        abort: () => settle(false),
      },
    };
  }

  /**
   * Queue priority of an admitted attempt from `address` (lower goes first): -1 for a source that signed in
   * successfully in the last day and has not failed since the window began, else its recent failures plus
   * its other attempts in flight. A wrong-password flood thus waits behind everyone else for a hash slot.
   */
  queuePriority(address: string): number {
    const now = this.clock.now();
    const entry = this.entries.get(rateLimitKey(address));
    if (!entry) return 0;
    const windowStart = now - this.cfg.window_secs * 1000;
    const failures = entry.attempts.filter((t) => t > windowStart).length;
    if (failures === 0 && entry.lastSuccessAt !== undefined && now - entry.lastSuccessAt < KNOWN_GOOD_MS) return -1;
    return failures + Math.max(0, entry.inFlight - 1);
  }

  /** Seconds until `address` may try again, or 0. */
  lockedFor(address: string): number {
    const now = this.clock.now();
    const entry = this.entries.get(rateLimitKey(address));
    return entry && entry.lockedUntil > now ? Math.ceil((entry.lockedUntil - now) / 1000) : 0;
  }

  private entry(key: string, now: number): Entry {
    if (this.entries.size > PRUNE_ABOVE) this.prune(now);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { attempts: [], inFlight: 0, lockedUntil: 0 };
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
      const recentSuccess = e.lastSuccessAt !== undefined && now - e.lastSuccessAt < KNOWN_GOOD_MS;
      if (e.inFlight === 0 && e.lockedUntil <= now && (e.attempts.at(-1) ?? 0) <= windowStart && !recentSuccess) this.entries.delete(key);
    }
  }
}

export interface Limiters {
  login: RateLimiter;
  device: RateLimiter;
  oauthResource: RateLimiter;
  oauthToken: RateLimiter;
}

export async function createLimiters(auth: { rate_limit: LimiterConfig; device_rate_limit: LimiterConfig; oauth_rate_limit: LimiterConfig; oauth_token_rate_limit: LimiterConfig }, clock: Clock, db?: GatewayDb): Promise<Limiters> {
  return {
    login: await new RateLimiter("login", auth.rate_limit, clock, "failures", db).restore(),
    device: await new RateLimiter("device", auth.device_rate_limit, clock, "failures", db).restore(),
    oauthResource: await new RateLimiter("oauth_resource", auth.oauth_rate_limit, clock, "requests", db).restore(),
    oauthToken: await new RateLimiter("oauth_token", auth.oauth_token_rate_limit, clock, "requests", db).restore(),
  };
}
