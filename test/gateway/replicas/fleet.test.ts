// The fleet journal shared by two replicas of one PostgreSQL database: one fleet epoch, a cursor from
// one replica's catalog resumes on the other with exactly the later events (same cursors, same order,
// none twice), a write on one reaches a stream open on the other (LISTEN/NOTIFY), a change announced by
// both is one event, a running session is observed by its owner only, whose summary the other replica's
// catalog shows from the journal, and a change whose writer died before journaling it is announced by the
// survivor's next round.
import { afterEach, expect } from "bun:test";
import { eq } from "drizzle-orm";
import type { Server } from "bun";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";
import { until } from "../../fakes/fake-clock.ts";
import { credentialDir, type FleetGateway, readEvents, sharedPepper, startFleetGateway } from "../fleet/helpers.ts";

const opened: FleetGateway[] = [];
const servers: Server<unknown>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) s.stop(true);
  for (const g of opened.splice(0)) await g.stop();
});

async function replicas(): Promise<[FleetGateway, FleetGateway]> {
  const database = await freshPgDatabase();
  const auth = sharedPepper();
  const a = await startFleetGateway({}, { database, auth, principal: "fleet-a", extra: "host_name: host-a\n" });
  opened.push(a);
  const b = await startFleetGateway({}, { database, auth, principal: "fleet-b", extra: "host_name: host-b\n" });
  opened.push(b);
  return [a, b];
}

const hex = (i: number) => i.toString(16).padStart(8, "0");
const isBeat = (e: { data: any }) => e.data.type === "heartbeat";
const after = (cursor: string) => `/api/v1/events?after=${encodeURIComponent(cursor)}`;
const rowId = (e: { data: any }) => e.data.project?.project_id ?? e.data.project_id ?? e.data.session?.session_id ?? e.data.session_id;

/** The events of a stream up to `count` changes, then up to a heartbeat fired afterwards: anything sent twice would show. */
async function changes(g: FleetGateway, path: string, count: number): Promise<{ id?: string; data: any }[]> {
  const res = await g.get(path);
  expect(res.status).toBe(200);
  let fired = false;
  const list = await readEvents(res, (events) => {
    const got = events.filter((e) => !isBeat(e));
    if (got.length >= count && !fired) {
      fired = true;
      // The beat goes out after everything already sent: it closes the window in which a duplicate could come.
      queueMicrotask(() => g.fleet.heartbeat());
      return false;
    }
    return fired && isBeat(events.at(-1)!);
  });
  return list.filter((e) => !isBeat(e));
}

pgTest("a cursor from one replica's catalog resumes on the other with exactly the later events, same cursors, in commit order", async () => {
  const [a, b] = await replicas();
  expect(b.fleet.epoch).toBe(a.fleet.epoch);
  const start = (await a.json("/api/v1/catalog")).body.cursor;
  await a.addProject(hex(1));
  await b.addProject(hex(2));
  await a.addSession("ses_r1", { projectId: hex(1), state: "starting" });
  await b.setSession("ses_r1", { state: "stopped" });
  await a.addProject(hex(3));
  await b.removeSession("ses_r1");

  const onB = await changes(b, after(start), 6);
  const onA = await changes(a, after(start), 6);
  expect(onB.map(rowId)).toEqual([hex(1), hex(2), "ses_r1", "ses_r1", hex(3), "ses_r1"]);
  expect(onB.map((e) => e.data.type)).toEqual(["project_upserted", "project_upserted", "session_upserted", "session_upserted", "project_upserted", "session_removed"]);
  expect(onB.map((e) => e.data.session?.state)).toEqual([undefined, undefined, "starting", "stopped", undefined, undefined]);
  // One journal: the same events with the same cursors whichever replica serves them.
  expect(onA.map((e) => e.id)).toEqual(onB.map((e) => e.id));
  expect(onA.map((e) => e.data)).toEqual(onB.map((e) => e.data));
  for (const e of onB) expect(e.data.fleet_epoch).toBe(a.fleet.epoch);

  // From each event's cursor, taken from A's stream, B replays exactly the rest.
  for (let i = 0; i < onA.length - 1; i++) {
    const rest = await changes(b, after(onA[i]!.id!), onA.length - 1 - i);
    expect(rest.map((e) => e.id)).toEqual(onA.slice(i + 1).map((e) => e.id));
  }
});

pgTest("a write on one replica reaches a stream open on the other; a change both replicas announce is one event", async () => {
  const [a, b] = await replicas();
  await a.addProject(hex(1));
  const cursor = (await b.json("/api/v1/catalog")).body.cursor;
  const res = await b.get(after(cursor));
  const got = readEvents(res, (events) => events.filter((e) => !isBeat(e)).length >= 2);
  await until(() => b.fleet.openStreams === 1, "the stream on B to open");
  await a.addProject(hex(2));
  // Both replicas signal the same change (as two writers of one row would): the journal holds it once.
  await a.gw.ctx.fleetChanges.touch({ kind: "project", id: hex(2) });
  await b.gw.ctx.fleetChanges.touch({ kind: "project", id: hex(2) });
  await a.removeProject(hex(1));
  const list = (await got).filter((e) => !isBeat(e));
  expect(list.map((e) => [e.data.type, rowId(e)])).toEqual([
    ["project_upserted", hex(2)],
    ["project_removed", hex(1)],
  ]);
  expect((await changes(a, after(cursor), 2)).map((e) => e.id)).toEqual(list.map((e) => e.id));
});

pgTest("a running session is observed by the replica that owns it; the other replica's catalog shows the owner's summary", async () => {
  const [a, b] = await replicas();
  const token = "dmn_fleet-replica-test-token-0123456789abcdef";
  let requests = 0;
  const daemon = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    reusePort: false,
    fetch(req) {
      if (req.headers.get("authorization") !== `Bearer ${token}`) return Response.json({ error: "unauthorized" }, { status: 401 });
      requests++;
      return Response.json({ version: 1, daemon_epoch: "ep1", cursor: "c7", busy: true, attention: false, history_checkpoint: "", history_total_items: 0 });
    },
  });
  servers.push(daemon);
  await a.addProject(hex(1));
  await a.addSession("ses_owned", { projectId: hex(1), state: "running", port: daemon.port!, sessionDir: credentialDir(token), daemonEpoch: "ep1", ownerHost: "host-a" });

  // B's observer round leaves another host's session alone, and B announces no "stale" for it.
  await b.fleet.tick();
  expect(requests).toBe(0);
  await a.fleet.tick();
  expect(requests).toBe(1);
  const seen = (await a.json("/api/v1/catalog")).body.sessions[0];
  expect(seen).toMatchObject({ session_id: "ses_owned", stale: false, summary: { busy: true, cursor: "c7" } });
  // B's catalog reads the journal first: A's announcement is there.
  expect((await b.json("/api/v1/catalog")).body.sessions[0]).toEqual(seen);
  await b.fleet.tick();
  expect(requests).toBe(1);
  const events = await changes(b, after((await b.json("/api/v1/catalog")).body.cursor), 0);
  expect(events).toEqual([]);
});

pgTest("a change a replica committed but never journaled (killed in between) is announced by the other replica's next round, once", async () => {
  const [a, b] = await replicas();
  await a.addProject(hex(1));
  const cursor = (await b.json("/api/v1/catalog")).body.cursor;
  // A's write without its announcement: what a kill -9 between the commit and the event leaves.
  const { db } = a.gw.ctx;
  a.gw.clock.advance(1000);
  await db.update(db.t.projects).set({ path: "/srv/moved", updatedAt: a.gw.clock.now() }).where(eq(db.t.projects.id, hex(1)));
  await db.insert(db.t.projects).values({ id: hex(2), path: "/srv/new", configName: "fleet-cfg", registeredAt: a.gw.clock.now(), updatedAt: a.gw.clock.now() });
  await b.fleet.tick();
  await a.fleet.tick();
  const list = await changes(b, after(cursor), 2);
  expect(list.map((e) => [e.data.type, rowId(e), e.data.project?.path])).toEqual([
    ["project_upserted", hex(1), "/srv/moved"],
    ["project_upserted", hex(2), "/srv/new"],
  ]);
});
