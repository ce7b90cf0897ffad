// PostgreSQL: replicas starting together on an empty database both come up (the migrations run once,
// under an advisory lock), a database written by a newer agent is refused, and a bad URL or password is a
// clear error that never shows the password.
import { expect, test } from "bun:test";
import { SQL } from "bun";
import { openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";

pgTest("four replicas opening one empty database together all come up; exactly one applies the migrations", async () => {
  const url = await freshPgDatabase();
  const opened = await Promise.all([1, 2, 3, 4].map(() => openGatewayPg(url)));
  expect(opened.map((o) => o.migrated).filter(Boolean)).toHaveLength(1);
  for (const o of opened) {
    expect(o.engine.name).toBe("postgresql");
    expect(await o.db.select().from(o.db.t.principals)).toEqual([]);
  }
  await Promise.all(opened.map((o) => o.db.close()));
  const again = await openGatewayPg(url);
  expect(again.migrated).toBe(false);
  await again.db.close();
}, 60_000);

pgTest("a database with migrations this binary lacks is refused before anything is applied", async () => {
  const url = await freshPgDatabase();
  await (await openGatewayPg(url)).db.close();
  const sql = new SQL(url);
  const n = ((await sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`) as { n: number }[])[0]!.n;
  await sql`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('from-the-future', 99999999999999)`;
  await sql.close();
  await expect(openGatewayPg(url)).rejects.toThrow(`the gateway database was written by a newer agent (schema ${n + 1}); this binary reads up to ${n}; update agent (${url})`);
}, 60_000);

pgTest("a refused password is an error naming the database without the password", async () => {
  const url = (await freshPgDatabase()).replace("postgres@", "nobody@");
  const error = await openGatewayPg(url, { password: "s3cret-pw" }).catch((e: Error) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toStartWith(`cannot connect to the gateway database at ${url}: `);
  expect((error as Error).message).not.toContain("s3cret-pw");
}, 60_000);
