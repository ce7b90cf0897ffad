// The database handle's transactions (src/gateway/db/handle.ts), on both dialects: statements of other
// requests never land inside an open SQLite transaction (they wait, and survive its rollback), a statement
// on the shared handle from inside a transaction is refused, and read-check-write transactions racing on
// PostgreSQL have exactly one winner (the transaction advisory lock), as on SQLite.
import { expect, test } from "bun:test";
import { and, eq, isNull } from "drizzle-orm";
import { openGatewayDb } from "../../../src/gateway/db/open.ts";
import { openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import { first, sqliteHandle, type GatewayDb } from "../../../src/gateway/db/handle.ts";
import { PgChanges } from "../../../src/gateway/db/pg-changes.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";

const principal = (id: string) => ({ id, username: id, createdAt: 1, updatedAt: 1 });

async function names(db: GatewayDb): Promise<string[]> {
  return (await db.select({ id: db.t.principals.id }).from(db.t.principals)).map((r) => r.id).sort();
}

test("sqlite: a statement issued while a transaction awaits runs after it, and survives its rollback", async () => {
  const opened = openGatewayDb(":memory:");
  const db = sqliteHandle(opened.sqlite);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const order: string[] = [];
  const failing = db
    .tx(async (tx) => {
      await tx.insert(tx.t.principals).values(principal("in_tx"));
      order.push("tx wrote");
      await gate;
      throw new Error("rolled back on purpose");
    })
    .catch((error: Error) => error.message);
  // Another request's write while the transaction is open (awaiting).
  await Bun.sleep(0);
  const outside = db.insert(db.t.principals).values(principal("outside")).then(() => order.push("outside wrote"));
  await Bun.sleep(5);
  expect(order).toEqual(["tx wrote"]);
  release();
  expect(await failing).toBe("rolled back on purpose");
  await outside;
  expect(order).toEqual(["tx wrote", "outside wrote"]);
  expect(await names(db)).toEqual(["outside"]);
  await db.close();
});

test("sqlite: a query returning rows issued while a transaction awaits waits for it and gets its rows", async () => {
  const opened = openGatewayDb(":memory:");
  const db = sqliteHandle(opened.sqlite);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const committed = db.tx(async (tx) => {
    await tx.insert(tx.t.principals).values(principal("committed"));
    await gate;
  });
  await Bun.sleep(0);
  // drizzle's `all` reads through the query's own `values`: the waiting query must not wait for itself.
  const read = names(db);
  const one = first(db.select({ id: db.t.principals.id }).from(db.t.principals));
  release();
  await committed;
  expect(await read).toEqual(["committed"]);
  expect(await one).toEqual({ id: "committed" });
  await db.close();
});

test("sqlite: the shared handle inside a transaction is refused instead of waiting for itself", async () => {
  const opened = openGatewayDb(":memory:");
  const db = sqliteHandle(opened.sqlite);
  const error = await db
    .tx(async () => {
      await db.select().from(db.t.principals);
    })
    .catch((e: Error) => e);
  expect((error as Error).message).toBe("a statement on the shared database handle inside a transaction: use the handle the transaction callback receives");
  // Nothing is left open: the handle works afterwards.
  await db.insert(db.t.principals).values(principal("after"));
  expect(await names(db)).toEqual(["after"]);
  await db.close();
});

async function claimRace(db: GatewayDb): Promise<number> {
  await db.insert(db.t.principals).values(principal("prize"));
  // Read, check, then write: without serialization two transactions both see it unclaimed.
  const claim = () =>
    db.tx(async (tx) => {
      const row = await first(tx.select().from(tx.t.principals).where(eq(tx.t.principals.id, "prize")));
      if (row?.displayName) return false;
      await Bun.sleep(5);
      await tx.update(tx.t.principals).set({ displayName: "claimed" }).where(eq(tx.t.principals.id, "prize"));
      return true;
    });
  const results = await Promise.all(Array.from({ length: 8 }, claim));
  return results.filter(Boolean).length;
}

test("sqlite: read-check-write transactions racing have one winner", async () => {
  const opened = openGatewayDb(":memory:");
  const db = sqliteHandle(opened.sqlite);
  expect(await claimRace(db)).toBe(1);
  await db.close();
});

pgTest("pg: read-check-write transactions racing over a pool have one winner", async () => {
  const opened = await openGatewayPg(await freshPgDatabase(), { max: 8 });
  expect(await claimRace(opened.db)).toBe(1);
  await opened.db.close();
}, 60_000);

/** A transaction with serialized: false runs while another holds the transaction lock (it would wait for `gate` forever otherwise). */
async function runsBesideTheLock(db: GatewayDb): Promise<void> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let lockHeld!: () => void;
  const holding = new Promise<void>((resolve) => (lockHeld = resolve));
  const serialized = db.tx(async (tx) => {
    await tx.insert(tx.t.principals).values(principal("serialized"));
    lockHeld();
    await gate;
  });
  await holding;
  await db.tx((tx) => tx.insert(tx.t.principals).values(principal("beside")), { serialized: false });
  release();
  await serialized;
  expect(await names(db)).toEqual(["beside", "serialized"]);
}

pgTest("pg: a transaction with serialized: false runs while another holds the transaction lock; a claim by conditional UPDATE in it still has one winner", async () => {
  const opened = await openGatewayPg(await freshPgDatabase(), { max: 8 });
  const db = opened.db;
  await runsBesideTheLock(db);
  await db.insert(db.t.principals).values(principal("prize"));
  const claim = () =>
    db.tx(
      async (tx) => {
        const { principals } = tx.t;
        const won = await tx.update(principals).set({ displayName: "claimed" }).where(and(eq(principals.id, "prize"), isNull(principals.displayName))).returning({ id: principals.id });
        await Bun.sleep(5);
        return won.length === 1;
      },
      { serialized: false },
    );
  const results = await Promise.all(Array.from({ length: 8 }, claim));
  expect(results.filter(Boolean)).toHaveLength(1);
  await db.close();
}, 60_000);

pgTest("pg: a gateway's handle that follows its own writes (change listener) keeps serialized: false", async () => {
  const url = await freshPgDatabase();
  const opened = await openGatewayPg(url, { max: 8 });
  const changes = await PgChanges.start({ url });
  changes.followWrites(opened.db);
  await runsBesideTheLock(opened.db);
  await changes.close();
  await opened.db.close();
}, 60_000);
