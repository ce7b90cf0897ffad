// A sign-in admitted just before PostgreSQL goes away reserves an attempt in the shared counter; its
// settlement fails on the outage too. The settlement is written once the database is back, so the
// reservation does not count toward the limit (or, two minutes later, as a failure): internal errors never
// count (gateway.md, authentication rule 2). Real PostgreSQL, stopped and started by the test.
import { afterAll, describe, expect } from "bun:test";
import { FakeClock } from "../../fakes/fake-clock.ts";
import { openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import { FailureLimiter } from "../../../src/gateway/net/rate-limit.ts";
import { AccountLoginLimiter } from "../../../src/gateway/auth/account-limiter.ts";
import { readCounter } from "../../../src/gateway/net/limit-row.ts";
import { rateLimitKey } from "../../../src/util/ip.ts";
import type { DeferredWrites } from "../../../src/gateway/net/deferred-writes.ts";
import { freshPgDatabase, PG_MISSING, pgTest, startPgServer } from "../../helpers/postgres.ts";
import { startTestGateway } from "../helpers.ts";

const server = PG_MISSING ? undefined : startPgServer();
afterAll(() => {
  if (server && !server.running) server.start();
});

async function settled(deferred: DeferredWrites): Promise<void> {
  for (let i = 0; i < 300 && deferred.waiting > 0; i++) await Bun.sleep(100);
  if (deferred.waiting > 0) throw new Error(`${deferred.waiting} settlements still wait for the database 30 s after it came back`);
}

describe("limiter settlements across a PostgreSQL outage", () => {
  pgTest("an attempt admitted before the outage and aborted during it is taken back once the database answers", async () => {
    const opened = await openGatewayPg(await freshPgDatabase(server!));
    const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
    const cfg = { max_attempts: 2, window_secs: 60, lockout_secs: 300 };
    const limiter = new FailureLimiter("login", cfg, clock, opened.db, true);
    const accounts = new AccountLoginLimiter(opened.db, clock);
    try {
      const first = await limiter.admit("192.0.2.7");
      const second = await limiter.admit("192.0.2.7");
      if (!first.allowed || !second.allowed) throw new Error("both attempts should be admitted");
      const account = await accounts.admit("ada", "192.0.2.7");
      if (!account.allowed) throw new Error("the account attempt should be admitted");

      server!.stop("fast");
      // The guarded work failed on the outage: abort, which cannot be written now, and does not throw.
      await first.ticket.abort();
      await second.ticket.abort();
      await account.ticket.abort();
      expect(limiter.deferred.waiting).toBe(2);
      expect(accounts.deferred.waiting).toBe(1);
      server!.start();
      await settled(limiter.deferred);
      await settled(accounts.deferred);

      const counter = await readCounter(opened.db, "login", rateLimitKey("192.0.2.7"), clock.now());
      expect(counter).toEqual({ failures: [], inFlight: [], lockedUntil: 0 });
      // Long after: nothing turned into a failure; the source may still sign in max_attempts times.
      clock.advance(10 * 60_000);
      expect((await limiter.admit("192.0.2.7")).allowed).toBe(true);
      expect((await limiter.admit("192.0.2.7")).allowed).toBe(true);
      const rows = (await opened.db.select().from(opened.db.t.rateLimitState)).filter((r) => r.limiter !== "login" && r.limiter !== "login_known_good");
      for (const row of rows) expect({ limiter: row.limiter, attempts: (row.attempts as number[]).filter((t) => t < 0) }).toEqual({ limiter: row.limiter, attempts: [] });
    } finally {
      if (!server!.running) server!.start();
      await opened.db.close();
    }
  }, 120_000);

  pgTest("token endpoint requests answered 503 during the outage do not use up the source's request budget", async () => {
    const gw = await startTestGateway("  oauth_token_rate_limit: {max_attempts: 3, window_secs: 600, lockout_secs: 600}\n", { database: await freshPgDatabase(server!) });
    const post = () => fetch(`${gw.url}/api/v1/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=client_credentials&client_id=nobody&client_secret=x" });
    try {
      server!.stop("fast");
      const during = [];
      for (let i = 0; i < 5; i++) during.push((await post()).status);
      expect(during).toEqual([503, 503, 503, 503, 503]);
      server!.start();
      let after = 503;
      for (let i = 0; i < 100 && after === 503; i++) {
        after = (await post()).status;
        if (after === 503) await Bun.sleep(100);
      }
      // The unknown client is refused (401) and counted; the budget of 3 was not spent by the outage.
      expect(after).toBe(401);
      expect((await post()).status).toBe(401);
    } finally {
      if (!server!.running) server!.start();
      await gw.stop();
    }
  }, 120_000);
});
