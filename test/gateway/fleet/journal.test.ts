// The journal table read by two processes' mirrors (two FleetJournal objects on one database, as two
// replicas without their wake-ups), on SQLite and PostgreSQL: the one that did not append reads every
// row in seq order with the same cursors; when retention deleted rows it never read, the first row it
// reads names a `prev` beyond its streams' position (they reset) and its old cursors are cursor_too_old.
import { afterEach, describe, expect, test } from "bun:test";
import { openGatewayDb } from "../../../src/gateway/db/open.ts";
import { openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import type { GatewayDb } from "../../../src/gateway/db/handle.ts";
import { FleetJournal, type JournalEntry } from "../../../src/gateway/fleet/journal.ts";
import { FLEET_LIMITS, type FleetLimits } from "../../../src/gateway/fleet/limits.ts";
import { TokenSigner } from "../../../src/protocol/tokens.ts";
import { FakeClock } from "../../fakes/fake-clock.ts";
import { freshPgDatabase, PG_MISSING } from "../../helpers/postgres.ts";

const dbs: GatewayDb[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.close();
});

const dialects: [string, () => Promise<GatewayDb>, boolean][] = [
  ["SQLite", async () => openGatewayDb(":memory:").db, false],
  ["PostgreSQL", async () => (await openGatewayPg(await freshPgDatabase())).db, PG_MISSING !== undefined],
];

const signer = new TokenSigner(new Uint8Array(32).fill(7), "fleet", "fle_test");
const journal = (db: GatewayDb, clock: FakeClock, limits: Partial<FleetLimits> = {}) => new FleetJournal("fle_test", db, signer, clock, { ...FLEET_LIMITS, ...limits });
const removed = (i: number) => async () => ({ type: "project_removed" as const, project_id: i.toString(16).padStart(8, "0") });

for (const [name, open, skip] of dialects) {
  describe(name, () => {
    test.skipIf(skip)("a second mirror reads the rows another appended, in order, with their cursors; a repeated view is not appended", async () => {
      const db = await open();
      dbs.push(db);
      const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
      const writer = journal(db, clock);
      const reader = journal(db, clock);
      await writer.catchUp();
      await reader.catchUp();
      const got: JournalEntry[] = [];
      reader.subscribe((e) => got.push(e));
      for (let i = 1; i <= 4; i++) expect(await writer.append(removed(i))).toBe(true);
      // The writer compares with the journal's last view inside the append: the same removal again is nothing.
      expect(await writer.append(async () => (writer.view("p:00000004")?.kind === "removed" ? null : { type: "project_removed", project_id: "00000004" }))).toBe(false);
      await reader.catchUp();
      expect(got.map((e) => JSON.parse(e.text).project_id)).toEqual(["00000001", "00000002", "00000003", "00000004"]);
      expect(got.map((e) => e.cursor)).toEqual(writer.after(0).map((e) => e.cursor));
      expect(got.map((e) => e.prev)).toEqual([0, ...got.slice(0, -1).map((e) => e.seq)]);
      expect(reader.view("p:00000003")).toEqual({ kind: "removed" });
      expect(await reader.resolve(got[1]!.cursor)).toBe(got[1]!.seq);
    });

    test.skipIf(skip)("rows retention deleted before a mirror read them: its next entry's prev is past its streams, its old cursors are too old", async () => {
      const db = await open();
      dbs.push(db);
      const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
      const writer = journal(db, clock, { journalRecords: 3 });
      const behind = journal(db, clock, { journalRecords: 3 });
      await writer.append(removed(1));
      await behind.catchUp();
      const position = behind.position;
      const old = behind.cursorAt(position);
      const got: JournalEntry[] = [];
      behind.subscribe((e) => got.push(e));
      for (let i = 2; i <= 10; i++) await writer.append(removed(i));
      expect((await db.select().from(db.t.fleetEvents)).length).toBeLessThanOrEqual(4);
      await behind.catchUp();
      expect(got[0]!.prev).toBeGreaterThan(position);
      // What it read is what the table holds (a removed row awaiting the next append's delete included); what
      // it retains is what the writer retains.
      expect(got.map((e) => e.seq)).toEqual((await db.select().from(db.t.fleetEvents)).map((r) => Number(r.seq)).sort((x, y) => x - y));
      expect(behind.after(0).map((e) => e.seq)).toEqual(writer.after(0).map((e) => e.seq));
      await expect(behind.resolve(old)).rejects.toMatchObject({ code: "cursor_too_old" });
      // A mirror that starts now sees the same floor.
      const fresh = journal(db, clock, { journalRecords: 3 });
      await fresh.catchUp();
      expect(fresh.after(0).map((e) => e.seq)).toEqual(writer.after(0).map((e) => e.seq));
      expect(fresh.position).toBe(writer.position);
    });
  });
}
