// Failed sign-ins counted per account, beside the per-source login limiter of spec rule 11 (which an
// attacker with a few addresses steps around). Two counters, both with a backoff that doubles and is capped:
// - account + source network (IPv4 /24, IPv6 /56): 5 failures free, then one attempt per backoff period.
//   This one touches the owner only when the attacker shares the owner's network.
// - the account from networks it never signed in from: 20 failures free across all of them, then the same
//   backoff. Networks from which the account signed in during the last 30 days are exempt, so an attacker
//   elsewhere cannot lock the owner out; a lock never outlasts the cap after the last failure.
// A success clears its account + network counter; the account counter only decays (an hour without failures),
// so the owner signing in does not hand an attacker a fresh set of guesses. Usernames that name no principal
// are counted like real ones (under a hash of the typed name, which may be a mistyped password), so a lock
// does not tell whether an account exists. State lives in `rate_limit_state`, shared by every replica and
// kept across restarts; attempts in flight are reserved there too (limit-row.ts), so a parallel burst cannot
// slip past a counter, on one replica or spread over several.
import { databaseUnavailable } from "../db/unavailable.ts";
import { DeferredWrites } from "../net/deferred-writes.ts";
import { and, eq, inArray, lt } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { first } from "../db/handle.ts";
import { changeCounter, type Counter, withoutInFlight } from "../net/limit-row.ts";
import { canonicalIp, ipBytes } from "../../util/ip.ts";
import { sha256Hex } from "../../util/ids.ts";


export const ACCOUNT_POLICY = {
  /** Failures from one account + network before the backoff starts. */
  networkFree: 5,
  /** Failures on one account (all unfamiliar networks together) before the backoff starts. */
  accountFree: 20,
  /** First backoff period; doubles with every further failure. */
  backoffBaseSecs: 60,
  /** Longest backoff period: no lock outlasts this after the last failure. */
  backoffCapSecs: 15 * 60,
  /** A counter with no failure for this long starts again from zero. */
  forgetSecs: 3600,
  /** A network the account signed in from counts as familiar this long. */
  familiarSecs: 30 * 24 * 3600,
  ipv4PrefixBits: 24,
  ipv6PrefixBits: 56,
} as const;

const LIMITER = { network: "login_account_network", account: "login_account", familiar: "login_account_familiar" } as const;
/** Failure times kept per counter (only the count and the last one matter). */
const KEEP = 64;

/** An admitted attempt's settlement; the counter is written before the promise resolves. */
export interface AccountTicket {
  fail(): Promise<void>;
  succeed(): Promise<void>;
  abort(): Promise<void>;
}

export type AccountAdmission = { allowed: true; ticket: AccountTicket } | { allowed: false; retryAfterSecs: number };

/** The network a source address counts under: IPv4 /24, IPv6 /56 (IPv4-mapped IPv6 as IPv4). */
export function sourceNetwork(address: string): string {
  const canonical = canonicalIp(address);
  const bytes = canonical === undefined ? undefined : ipBytes(canonical);
  if (!bytes) return address;
  const bits = bytes.length === 4 ? ACCOUNT_POLICY.ipv4PrefixBits : ACCOUNT_POLICY.ipv6PrefixBits;
  const masked = bytes.map((b, i) => (i * 8 >= bits ? 0 : i * 8 + 8 <= bits ? b : b & ((0xff << (8 - (bits - i * 8))) & 0xff)));
  if (bytes.length === 4) return `${[...masked].join(".")}/${bits}`;
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((masked[i]! << 8) | masked[i + 1]!).toString(16));
  return `${canonicalIp(words.join(":"))}/${bits}`;
}

/** The counter key of a sign-in: the principal when the name finds one, else a hash of the typed name. */
export function accountKey(principalId: string | undefined, typedName: string): string {
  return principalId ?? `name:${sha256Hex(typedName.trim().toLowerCase()).slice(0, 32)}`;
}

/** How often counters nobody failed on for `forgetSecs` (and familiar networks past `familiarSecs`) are deleted. */
const PRUNE_EVERY_MS = 60_000;

export class AccountLoginLimiter {
  private prunedAt = 0;

  /** Settlements waiting for the database after an outage. */
  readonly deferred = new DeferredWrites();

  constructor(private readonly db: GatewayDb, private readonly clock: Clock) {}

  /** Reserves a sign-in attempt on `account` from `address`, or refuses it with Retry-After. Throws on database failure. */
  async admit(account: string, address: string): Promise<AccountAdmission> {
    // Settlements an outage held back are written before this attempt is counted against them.
    if (this.deferred.waiting > 0) await this.deferred.flush();
    const now = this.clock.now();
    if (now - this.prunedAt >= PRUNE_EVERY_MS) await this.prune(now);
    const network = sourceNetwork(address);
    const pairKey = `${account} ${network}`;
    const checks: Array<{ limiter: string; key: string; free: number }> = [{ limiter: LIMITER.network, key: pairKey, free: ACCOUNT_POLICY.networkFree }];
    if (!(await this.familiar(pairKey, now))) checks.push({ limiter: LIMITER.account, key: account, free: ACCOUNT_POLICY.accountFree });
    // Each checked counter is checked and reserved in one atomic step (limit-row.ts), so a parallel burst
    // cannot slip past the limit, on one replica or spread over several; a refusal takes back what was reserved.
    const reserved: typeof checks = [];
    for (const c of checks) {
      const wait = await this.reserving([...reserved, c], now, () => changeCounter(this.db, c.limiter, c.key, now, (stored) => {
        const counter = this.current(stored, now);
        const wait = this.waitSecs(counter, c.free, now);
        if (wait > 0) return { result: wait };
        // Past the free allowance, one attempt at a time: the one in flight holds the counter for a backoff period.
        const hold = counter.failures.length >= c.free ? now + ACCOUNT_POLICY.backoffBaseSecs * 1000 : counter.lockedUntil;
        return { write: { ...counter, inFlight: [...counter.inFlight, now], lockedUntil: hold }, result: 0 };
      }));
      if (wait > 0) {
        for (const r of reserved) await this.deferred.run(() => this.release(r.limiter, r.key, now));
        return { allowed: false, retryAfterSecs: wait };
      }
      reserved.push(c);
    }
    // Every counter of the account is charged on failure, the account counter also from familiar networks.
    const charged = [
      { limiter: LIMITER.network, key: pairKey, free: ACCOUNT_POLICY.networkFree },
      { limiter: LIMITER.account, key: account, free: ACCOUNT_POLICY.accountFree },
    ];
    let settled = false;
    const settle = async (outcome: "fail" | "succeed" | "abort") => {
      if (settled) return;
      settled = true;
      const at = this.clock.now();
      await this.deferred.run(() => write(outcome, at));
    };
    const write = async (outcome: "fail" | "succeed" | "abort", at: number) => {
      if (outcome === "fail") {
        for (const c of charged) await this.recordFailure(c.limiter, c.key, c.free, reserved.some((r) => r.limiter === c.limiter) ? now : undefined, at);
        return;
      }
      for (const r of reserved) await this.release(r.limiter, r.key, now);
      if (outcome === "succeed") {
        const { rateLimitState } = this.db.t;
        await this.db.delete(rateLimitState).where(and(eq(rateLimitState.limiter, LIMITER.network), eq(rateLimitState.key, pairKey)));
        await this.db
          .insert(rateLimitState)
          .values({ limiter: LIMITER.familiar, key: pairKey, attempts: [], updatedAt: at })
          .onConflictDoUpdate({ target: [rateLimitState.limiter, rateLimitState.key], set: { updatedAt: at } });
      }
    };
    return { allowed: true, ticket: { fail: () => settle("fail"), succeed: () => settle("succeed"), abort: () => settle("abort") } };
  }

  /** Seconds until another attempt may start on this counter, or 0. */
  private waitSecs(counter: Counter, free: number, now: number): number {
    if (counter.lockedUntil > now) return Math.ceil((counter.lockedUntil - now) / 1000);
    const failures = counter.failures.length;
    const pending = counter.inFlight.length;
    // Below the free allowance, attempts may run side by side up to it; past it, one at a time per backoff period.
    if (failures < free ? failures + pending >= free : pending > 0) return ACCOUNT_POLICY.backoffBaseSecs;
    return 0;
  }

  /** Counts a failure; the attempt's reservation on this counter (made at `reservedAt`) becomes the failure. */
  private async recordFailure(limiter: string, key: string, free: number, reservedAt: number | undefined, now: number): Promise<void> {
    await changeCounter(this.db, limiter, key, now, (stored) => {
      const counter = this.current((reservedAt !== undefined && withoutInFlight(stored, reservedAt)) || stored, now);
      const failures = [...counter.failures, now].slice(-KEEP);
      const count = counter.failures.length + 1;
      const lockedUntil = count >= free ? now + Math.min(ACCOUNT_POLICY.backoffBaseSecs * 2 ** (count - free), ACCOUNT_POLICY.backoffCapSecs) * 1000 : 0;
      return { write: { failures, inFlight: counter.inFlight, lockedUntil }, result: undefined };
    });
  }

  /** Takes back a reservation made at `startedAt`, with the backoff period it held (another failure's lock stays). */
  /**
   * Runs an admission's write. When the database fails it, what this attempt may hold (the counters reserved
   * before, and this one's write, perhaps committed with its answer lost) is taken back once it answers.
   */
  private async reserving<R>(held: { limiter: string; key: string }[], startedAt: number, write: () => Promise<R>): Promise<R> {
    try {
      return await write();
    } catch (error) {
      if (databaseUnavailable(error)) for (const r of held) this.deferred.defer(() => this.release(r.limiter, r.key, startedAt));
      throw error;
    }
  }

  private async release(limiter: string, key: string, startedAt: number): Promise<void> {
    await changeCounter(this.db, limiter, key, this.clock.now(), (stored) => {
      const rest = withoutInFlight(stored, startedAt);
      if (!rest) return { result: undefined };
      const held = rest.lockedUntil === startedAt + ACCOUNT_POLICY.backoffBaseSecs * 1000;
      return { write: held ? { ...rest, lockedUntil: 0 } : rest, result: undefined };
    });
  }

  /** A counter as it stands now: its failures forgotten after `forgetSecs` without one. */
  private current(counter: Counter, now: number): Counter {
    const last = counter.failures.at(-1);
    if (last === undefined || now - last >= ACCOUNT_POLICY.forgetSecs * 1000) return { ...counter, failures: [] };
    return counter;
  }

  /** Names typed at random must not grow the table without bound: stale counters go. */
  private async prune(now: number): Promise<void> {
    this.prunedAt = now;
    const { rateLimitState } = this.db.t;
    // A counter is stale once forgotten and unlocked; the cap is below forgetSecs, so forgotten implies unlocked.
    const stale = now - ACCOUNT_POLICY.forgetSecs * 1000;
    await this.db.delete(rateLimitState).where(and(inArray(rateLimitState.limiter, [LIMITER.network, LIMITER.account]), lt(rateLimitState.updatedAt, stale)));
    await this.db.delete(rateLimitState).where(and(eq(rateLimitState.limiter, LIMITER.familiar), lt(rateLimitState.updatedAt, now - ACCOUNT_POLICY.familiarSecs * 1000)));
  }

  private async familiar(pairKey: string, now: number): Promise<boolean> {
    const { rateLimitState } = this.db.t;
    const row = await first(this.db.select({ at: rateLimitState.updatedAt }).from(rateLimitState).where(and(eq(rateLimitState.limiter, LIMITER.familiar), eq(rateLimitState.key, pairKey))));
    return row !== undefined && now - row.at < ACCOUNT_POLICY.familiarSecs * 1000;
  }
}

const perContext = new WeakMap<object, AccountLoginLimiter>();

/** The account limiter of a gateway (one per context, created on first use). */
export function accountLimiter(ctx: { db: GatewayDb; clock: Clock }): AccountLoginLimiter {
  let limiter = perContext.get(ctx);
  if (!limiter) {
    limiter = new AccountLoginLimiter(ctx.db, ctx.clock);
    perContext.set(ctx, limiter);
  }
  return limiter;
}
