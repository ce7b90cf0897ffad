// Which database errors are an outage (503) and which stay a bug (500): decided by the drivers' codes,
// through drizzle's wrapping, on real errors from bun:sqlite and Bun's PostgreSQL client.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { databaseUnavailable } from "../../../src/gateway/db/unavailable.ts";
import { openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";
import { tempDir } from "../helpers.ts";

async function thrown(work: () => Promise<unknown> | unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

describe("databaseUnavailable", () => {
  test("SQLite: a lock held past the busy timeout is an outage; a constraint or a syntax error is not", async () => {
    const file = join(tempDir("unavail-"), "x.sqlite");
    const holder = new Database(file);
    holder.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY)");
    const db = new Database(file);
    db.exec("PRAGMA busy_timeout = 10");
    holder.exec("BEGIN EXCLUSIVE");
    expect(databaseUnavailable(await thrown(() => db.query("INSERT INTO t VALUES (1)").run()))).toBe("SQLITE_BUSY");
    holder.exec("ROLLBACK");
    db.query("INSERT INTO t VALUES (1)").run();
    expect(databaseUnavailable(await thrown(() => db.query("INSERT INTO t VALUES (1)").run()))).toBeUndefined();
    expect(databaseUnavailable(await thrown(() => db.query("SELEC 1").run()))).toBeUndefined();
    expect(databaseUnavailable(new TypeError("undefined is not an object"))).toBeUndefined();
    db.close();
    holder.close();
  });

  pgTest("PostgreSQL: a refused connection is an outage, also wrapped by drizzle; a query's own error is not", async () => {
    const url = await freshPgDatabase();
    const opened = await openGatewayPg(url);
    try {
      const wrapped = await thrown(() => opened.db.select({ n: sql`1 / 0` }).from(opened.db.t.gatewaySettings));
      expect((wrapped as Error).cause).toBeDefined();
      expect(databaseUnavailable(wrapped)).toBeUndefined();
      expect(databaseUnavailable(await thrown(() => opened.db.insert(opened.db.t.gatewaySettings).values({ key: "k", value: "v", updatedAt: 1 }).then(() => opened.db.insert(opened.db.t.gatewaySettings).values({ key: "k", value: "v", updatedAt: 1 }))))).toBeUndefined();
    } finally {
      await opened.db.close();
    }
    // A port nothing listens on: Bun's client refuses before any query runs.
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = probe.port;
    probe.stop(true);
    const nowhere = new SQL({ url: url.replace(/:\d+\//, `:${port}/`), max: 1 });
    expect(databaseUnavailable(await thrown(() => nowhere`SELECT 1`))).toBe("ERR_POSTGRES_CONNECTION_REFUSED");
    const viaDrizzle = await thrown(() => drizzle({ client: nowhere }).execute(sql`SELECT 1`));
    expect((viaDrizzle as Error).cause).toBeDefined();
    expect(databaseUnavailable(viaDrizzle)).toBe("ERR_POSTGRES_CONNECTION_REFUSED");
    // The gateway's role refused (SQLSTATE class 28) is an outage of the gateway's database too.
    const stranger = new SQL({ url: url.replace("postgres@", "nobody@"), max: 1 });
    expect(databaseUnavailable(await thrown(() => stranger`SELECT 1`))).toBe("28000");
  });
});
