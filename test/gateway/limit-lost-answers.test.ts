// An admission whose reservation was committed but whose answer was lost with the database connection (an
// outage in the middle of the write) must not count: the limiter takes the reservation back once the
// database answers (gateway.md, authentication rule 2). The database here commits every write and then,
// once, answers with the driver's "connection closed" error, as PostgreSQL stopped mid-query does.
import { describe, expect, test } from "bun:test";
import { FakeClock } from "../fakes/fake-clock.ts";
import { openGatewayDb } from "../../src/gateway/db/open.ts";
import type { GatewayDb } from "../../src/gateway/db/handle.ts";
import { FailureLimiter } from "../../src/gateway/net/rate-limit.ts";
import { AccountLoginLimiter } from "../../src/gateway/auth/account-limiter.ts";
import type { DeferredWrites } from "../../src/gateway/net/deferred-writes.ts";

/** Bun's error for a PostgreSQL connection lost during a query (src/gateway/db/unavailable.ts). */
const connectionClosed = () => Object.assign(new Error("Connection closed"), { name: "PostgresError", code: "ERR_POSTGRES_CONNECTION_CLOSED" });

/** `db` whose next `fail` inserts/updates are written and then answered with a lost connection. */
function losingAnswers(db: GatewayDb, state: { fail: number }): GatewayDb {
  const wrap = (target: object): object =>
    new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop, t);
        if (prop === "then" && typeof value === "function") {
          return (resolve: (v: unknown) => unknown, reject: (e: unknown) => unknown) =>
            (value as (a: (v: unknown) => unknown) => Promise<unknown>).call(t, (result: unknown) => {
              if (state.fail > 0) {
                state.fail--;
                throw connectionClosed();
              }
              return result;
            }).then(resolve, reject);
        }
        if (typeof value === "function") return (...args: unknown[]) => {
          const out = (value as (...a: unknown[]) => unknown).apply(t, args);
          return out && typeof out === "object" ? wrap(out) : out;
        };
        return value;
      },
    });
  return new Proxy(db, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t);
      if ((prop === "insert" || prop === "update") && typeof value === "function") return (...args: unknown[]) => wrap((value as (...a: unknown[]) => object).apply(t, args));
      return value;
    },
  });
}

async function settled(deferred: DeferredWrites): Promise<void> {
  for (let i = 0; i < 100 && deferred.waiting > 0; i++) await Bun.sleep(50);
  expect(deferred.waiting).toBe(0);
}

const attempts = async (db: GatewayDb) => (await db.select().from(db.t.rateLimitState)).map((r) => ({ limiter: r.limiter, inFlight: (r.attempts as number[]).filter((t) => t < 0).length, lockedUntil: r.lockedUntil }));

describe("a reservation committed with its answer lost is taken back", () => {
  test("source limiter: the lost admission is a 503 for its caller and holds nothing once the database answers", async () => {
    const { db } = openGatewayDb(":memory:");
    const state = { fail: 0 };
    const limiter = new FailureLimiter("login", { max_attempts: 1, window_secs: 60, lockout_secs: 300 }, new FakeClock(Date.parse("2026-01-01T00:00:00Z")), losingAnswers(db, state));
    state.fail = 1;
    let thrown: unknown;
    try {
      await limiter.admit("192.0.2.7");
    } catch (error) {
      thrown = error;
    }
    expect((thrown as { code?: string }).code).toBe("ERR_POSTGRES_CONNECTION_CLOSED");
    expect(await attempts(db)).toEqual([{ limiter: "login", inFlight: 1, lockedUntil: null }]);
    await settled(limiter.deferred);
    expect(await attempts(db)).toEqual([{ limiter: "login", inFlight: 0, lockedUntil: null }]);
    // With max_attempts 1, the source still has its one attempt.
    expect((await limiter.admit("192.0.2.7")).allowed).toBe(true);
  });

  test("per-account counters: the backoff hold of a lost admission is lifted, and earlier reservations are taken back", async () => {
    const { db } = openGatewayDb(":memory:");
    const state = { fail: 0 };
    const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
    const limiter = new AccountLoginLimiter(losingAnswers(db, state), clock);
    // Failures past the free allowance, so an attempt in flight holds its counters for a backoff period.
    for (let i = 0; i < 6; i++) {
      const a = await limiter.admit("ada", "192.0.2.7");
      if (!a.allowed) throw new Error(`attempt ${i} was refused`);
      await a.ticket.fail();
      // Past the longest backoff, within the hour that keeps failures.
      clock.advance(16 * 60_000);
    }
    state.fail = 2;
    let thrown: unknown;
    try {
      await limiter.admit("ada", "192.0.2.7");
    } catch (error) {
      thrown = error;
    }
    expect((thrown as { code?: string }).code).toBe("ERR_POSTGRES_CONNECTION_CLOSED");
    expect((await attempts(db)).some((r) => r.inFlight > 0)).toBe(true);
    await settled(limiter.deferred);
    expect((await attempts(db)).filter((r) => r.inFlight > 0)).toEqual([]);
    const again = await limiter.admit("ada", "192.0.2.7");
    expect(again.allowed).toBe(true);
  });

  test("the next admission writes what the outage held back before counting (no wait for the retry timer)", async () => {
    const { db } = openGatewayDb(":memory:");
    const state = { fail: 0 };
    const limiter = new FailureLimiter("login", { max_attempts: 1, window_secs: 60, lockout_secs: 300 }, new FakeClock(Date.parse("2026-01-01T00:00:00Z")), losingAnswers(db, state));
    state.fail = 1;
    await limiter.admit("192.0.2.7").catch(() => undefined);
    expect(limiter.deferred.waiting).toBe(1);
    // At once, before the retry timer: the lost reservation is taken back first, so the one attempt is free.
    expect((await limiter.admit("192.0.2.7")).allowed).toBe(true);
    expect(limiter.deferred.waiting).toBe(0);
  });
});
