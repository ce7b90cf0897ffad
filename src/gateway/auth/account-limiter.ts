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
// does not tell whether an account exists. State lives in `rate_limit_state` and survives restarts; in-flight
// attempts are reserved in memory, so a parallel burst cannot slip past a counter.
import { and, eq, inArray, lt } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { first } from "../db/handle.ts";
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

interface Counter {
  attempts: number[];
  lockedUntil: number;
}

/** How often counters nobody failed on for `forgetSecs` (and familiar networks past `familiarSecs`) are deleted. */
const PRUNE_EVERY_MS = 60_000;

export class AccountLoginLimiter {
  private readonly inFlight = new Map<string, number>();
  private prunedAt = 0;

  constructor(private readonly db: GatewayDb, private readonly clock: Clock) {}

  /** Reserves a sign-in attempt on `account` from `address`, or refuses it with Retry-After. Throws on database failure. */
  async admit(account: string, address: string): Promise<AccountAdmission> {
    const now = this.clock.now();
    if (now - this.prunedAt >= PRUNE_EVERY_MS) await this.prune(now);
    const network = sourceNetwork(address);
    const pairKey = `${account} ${network}`;
    const checks: Array<{ limiter: string; key: string; free: number }> = [{ limiter: LIMITER.network, key: pairKey, free: ACCOUNT_POLICY.networkFree }];
    if (!(await this.familiar(pairKey, now))) checks.push({ limiter: LIMITER.account, key: account, free: ACCOUNT_POLICY.accountFree });
    const counters = await Promise.all(checks.map((c) => this.read(c.limiter, c.key, now)));
    // From here to the reservation nothing awaits: attempts in flight are counted and reserved in one step,
    // so a parallel burst cannot slip past the limit.
    for (const [i, c] of checks.entries()) {
      const wait = this.waitSecs(counters[i]!, c.limiter, c.key, c.free, now);
      if (wait > 0) return { allowed: false, retryAfterSecs: wait };
    }
    // Every counter of the account is charged on failure, the account counter also from familiar networks.
    const charged = [
      { limiter: LIMITER.network, key: pairKey, free: ACCOUNT_POLICY.networkFree },
      { limiter: LIMITER.account, key: account, free: ACCOUNT_POLICY.accountFree },
    ];
    const reserved = checks.map((c) => `${c.limiter} ${c.key}`);
    for (const r of reserved) this.inFlight.set(r, (this.inFlight.get(r) ?? 0) + 1);
    let settled = false;
    const settle = async (outcome: "fail" | "succeed" | "abort") => {
      if (settled) return;
      settled = true;
      for (const r of reserved) {
        const n = (this.inFlight.get(r) ?? 1) - 1;
        if (n > 0) this.inFlight.set(r, n);
        else this.inFlight.delete(r);
      }
      const at = this.clock.now();
      if (outcome === "fail") for (const c of charged) await this.recordFailure(c.limiter, c.key, c.free, at);
      if (outcome === "succeed") {
        const { rateLimitState } = this.db.t;
        await this.db.delete(rateLimitState).where(and(eq(rateLimitState.limiter, LIMITER.network), eq(rateLimitState.key, pairKey)));
        await this.write(LIMITER.familiar, pairKey, { attempts: [], lockedUntil: 0 }, at);
      }
    };
    return { allowed: true, ticket: { fail: () => settle("fail"), succeed: () => settle("succeed"), abort: () => settle("abort") } };
  }

  /** Seconds until another attempt may start on this counter, or 0. */
  private waitSecs(counter: Counter, limiter: string, key: string, free: number, now: number): number {
    const pending = this.inFlight.get(`${limiter} ${key}`) ?? 0;
    if (counter.lockedUntil > now) return Math.ceil((counter.lockedUntil - now) / 1000);
    const failures = counter.attempts.length;
    // Below the free allowance, attempts may run side by side up to it; past it, one at a time per backoff period.
    if (failures < free ? failures + pending >= free : pending > 0) return ACCOUNT_POLICY.backoffBaseSecs;
    return 0;
  }

  private async recordFailure(limiter: string, key: string, free: number, now: number): Promise<void> {
    const counter = await this.read(limiter, key, now);
    const attempts = [...counter.attempts, now].slice(-KEEP);
    const failures = counter.attempts.length + 1;
    const lockedUntil = failures >= free ? now + Math.min(ACCOUNT_POLICY.backoffBaseSecs * 2 ** (failures - free), ACCOUNT_POLICY.backoffCapSecs) * 1000 : 0;
    await this.write(limiter, key, { attempts, lockedUntil }, now);
  }

  /** A counter as it stands now: forgotten after `forgetSecs` without a failure. */
  private async read(limiter: string, key: string, now: number): Promise<Counter> {
    const { rateLimitState } = this.db.t;
    const row = await first(this.db.select().from(rateLimitState).where(and(eq(rateLimitState.limiter, limiter), eq(rateLimitState.key, key))));
    if (!row) return { attempts: [], lockedUntil: 0 };
    const last = row.attempts.at(-1);
    if (last === undefined || now - last >= ACCOUNT_POLICY.forgetSecs * 1000) return { attempts: [], lockedUntil: row.lockedUntil ?? 0 };
    return { attempts: row.attempts, lockedUntil: row.lockedUntil ?? 0 };
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

  private async write(limiter: string, key: string, counter: Counter, now: number): Promise<void> {
    const { rateLimitState } = this.db.t;
    const values = { attempts: counter.attempts, lockedUntil: counter.lockedUntil || null, updatedAt: now };
    await this.db
      .insert(rateLimitState)
      .values({ limiter, key, ...values })
      .onConflictDoUpdate({ target: [rateLimitState.limiter, rateLimitState.key], set: values });
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
