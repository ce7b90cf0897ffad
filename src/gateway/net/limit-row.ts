// One counter of `rate_limit_state`, shared by every replica: changed by compare-and-set (read the row,
// decide in code, write only where the row is still exactly what was read, else read again). Nothing is
// locked between the read and the write, and db.tx's global lock is not taken: a flood of sign-ins from
// many sources must not queue the gateway's other transactions (refresh rotation, grant issuance).
// The attempts column holds failure times, and attempts still in flight as their start times negated, so
// every replica counts a reservation another replica made before its guarded work started.
import { and, eq, isNull, sql } from "drizzle-orm";
import type { GatewayDb } from "../db/handle.ts";
import { first } from "../db/handle.ts";

/**
 * How long an attempt may stay in flight. No sign-in takes this long (a hash slot and PAM answer within
 * seconds); an older reservation belongs to a replica that stopped mid-attempt, and counts as a failure.
 */
export const IN_FLIGHT_MAX_MS = 120_000;

export interface Counter {
  /** Failure times (ms), oldest first. */
  failures: number[];
  /** Start times (ms) of the attempts still in flight. */
  inFlight: number[];
  /** 0 when not locked. */
  lockedUntil: number;
}

export const EMPTY: Counter = { failures: [], inFlight: [], lockedUntil: 0 };

/** What `decide` answers: the counter to write (`undefined`: leave the row as it is; `null`: delete it) and the caller's result. */
export interface Decision<R> {
  write?: Counter | null;
  result: R;
}

/** Tries before a counter that keeps changing under us is reported as an internal error (never reached in practice). */
const MAX_TRIES = 200;

function decode(attempts: number[], lockedUntil: number | null, now: number): Counter {
  const failures: number[] = [];
  const inFlight: number[] = [];
  for (const t of attempts) {
    if (t >= 0) failures.push(t);
    else if (now + t < IN_FLIGHT_MAX_MS) inFlight.push(-t);
    else failures.push(-t);
  }
  return { failures: failures.sort((x, y) => x - y), inFlight, lockedUntil: lockedUntil ?? 0 };
}

function encode(counter: Counter): number[] {
  return [...counter.failures, ...counter.inFlight.map((t) => -t)];
}

/** The counter as it stands (EMPTY when there is no row). */
export async function readCounter(db: GatewayDb, limiter: string, key: string, now: number): Promise<Counter> {
  const { rateLimitState: t } = db.t;
  const row = await first(db.select({ attempts: t.attempts, lockedUntil: t.lockedUntil }).from(t).where(and(eq(t.limiter, limiter), eq(t.key, key))));
  return row ? decode(row.attempts, row.lockedUntil, now) : EMPTY;
}

/** Applies `decide` to the counter atomically against every other writer (replica or concurrent request). */
export async function changeCounter<R>(db: GatewayDb, limiter: string, key: string, now: number, decide: (counter: Counter, exists: boolean) => Decision<R>): Promise<R> {
  const { rateLimitState: t } = db.t;
  const match = and(eq(t.limiter, limiter), eq(t.key, key));
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    // The stored text as it is (no JSON mapping), so the compare below is exact.
    const row = await first(db.select({ attempts: sql<string>`${t.attempts}`, lockedUntil: t.lockedUntil, updatedAt: t.updatedAt }).from(t).where(match));
    const { write, result } = decide(row ? decode(JSON.parse(row.attempts) as number[], row.lockedUntil, now) : EMPTY, row !== undefined);
    if (write === undefined || (write === null && !row)) return result;
    const values = write && { attempts: encode(write), lockedUntil: write.lockedUntil || null, updatedAt: now };
    let written: unknown[];
    if (!row) {
      written = await db.insert(t).values({ limiter, key, ...values! }).onConflictDoNothing().returning({ key: t.key });
    } else {
      const unchanged = and(match, sql`${t.attempts} = ${row.attempts}`, eq(t.updatedAt, row.updatedAt), row.lockedUntil === null ? isNull(t.lockedUntil) : eq(t.lockedUntil, row.lockedUntil));
      written = values ? await db.update(t).set(values).where(unchanged).returning({ key: t.key }) : await db.delete(t).where(unchanged).returning({ key: t.key });
    }
    if (written.length === 1) return result;
  }
  throw new Error(`the ${limiter} counter kept changing while it was updated`);
}

/** `counter` without one in-flight attempt that started at `startedAt`; undefined when it is no longer there. */
export function withoutInFlight(counter: Counter, startedAt: number): Counter | undefined {
  const i = counter.inFlight.indexOf(startedAt);
  if (i < 0) return undefined;
  return { ...counter, inFlight: counter.inFlight.filter((_, j) => j !== i) };
}
