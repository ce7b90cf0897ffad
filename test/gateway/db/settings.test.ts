// gateway_settings (src/gateway/db/settings.ts) on both dialects: the first writer's value stays, later
// writers get it back, and writers racing on PostgreSQL over two connection pools (two replicas) agree.
import { expect, test } from "bun:test";
import { openGatewayDb } from "../../../src/gateway/db/open.ts";
import { openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import { getSetting, putSettingIfAbsent } from "../../../src/gateway/db/settings.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";

const now = new Date("2026-01-01T00:00:00Z");

test("sqlite: the first value stored under a key stays; later writers get it back", async () => {
  const { db } = openGatewayDb(":memory:");
  expect(await getSetting(db, "k")).toBeUndefined();
  expect(await putSettingIfAbsent(db, "k", "first", now)).toBe("first");
  let computed = false;
  expect(await putSettingIfAbsent(db, "k", () => ((computed = true), "second"), now)).toBe("first");
  expect(computed).toBe(false);
  expect(await getSetting(db, "k")).toBe("first");
  await db.close();
});

pgTest("pg: writers racing from two replicas store one value and all read it", async () => {
  const url = await freshPgDatabase();
  const a = await openGatewayPg(url);
  const b = await openGatewayPg(url);
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => putSettingIfAbsent(i % 2 ? a.db : b.db, "k", async () => `value ${i}`, now)));
  expect(new Set(results).size).toBe(1);
  expect(await getSetting(a.db, "k")).toBe(results[0]!);
  expect(await getSetting(b.db, "k")).toBe(results[0]!);
  await a.db.close();
  await b.db.close();
});
