// GET /api/v1/events over real HTTP: replay from every position, live changes, the `eventsource` client
// resuming with Last-Event-ID, heartbeats on the fake scheduler, cursor abuse answered with exact codes,
// the journal's bounds, revocation and a slow consumer ending the stream.
import { afterEach, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { EventSource } from "eventsource";
import { eq } from "drizzle-orm";
import { installFleet } from "../../../src/gateway/fleet/service.ts";
import { ServiceCredentials } from "../../../src/gateway/sessions/credentials.ts";
import { SessionRegistry } from "../../../src/gateway/sessions/registry.ts";
import { until } from "../../fakes/fake-clock.ts";
import { type FleetGateway, readEvents, sharedPepper, startFleetGateway } from "./helpers.ts";

let f: FleetGateway;
afterEach(async () => {
  await f?.stop();
});

const hex = (i: number) => i.toString(16).padStart(8, "0");
const isBeat = (e: { data: any }) => e.data.type === "heartbeat";
/** Events up to and including the first heartbeat (the stream sends one once its replay is done). */
const untilBeat = (events: { data: any }[]) => events.some(isBeat);
const events = (query: string, headers: Record<string, string> = {}) => f.get(`/api/v1/events${query}`, headers);
const after = (cursor: string) => `?after=${encodeURIComponent(cursor)}`;

async function catalogCursor(): Promise<string> {
  return (await f.json("/api/v1/catalog")).body.cursor;
}

describe("replay and live events", () => {
  test("from every position the stream replays exactly the later events, in order, then a heartbeat", async () => {
    f = await startFleetGateway();
    const start = await catalogCursor();
    for (let i = 0; i < 6; i++) await f.addProject(hex(i));
    await f.addSession("ses_a", { projectId: hex(0), state: "starting" });
    await f.setSession("ses_a", { state: "running", port: 1 });
    await f.removeSession("ses_a");
    const all = (await readEvents(await events(after(start)), untilBeat)).filter((e) => !isBeat(e));
    expect(all.map((e) => e.data.type)).toEqual([...Array(6).fill("project_upserted"), "session_upserted", "session_upserted", "session_removed"]);
    expect(all.map((e) => e.data.project?.project_id ?? e.data.session?.session_id ?? e.data.session_id)).toEqual([...Array.from({ length: 6 }, (_, i) => hex(i)), "ses_a", "ses_a", "ses_a"]);
    expect(all.map((e) => e.data.session?.state).slice(6, 8)).toEqual(["starting", "running"]);
    for (const e of all) {
      expect(e.id).toBe(e.data.cursor);
      expect(e.data).toMatchObject({ version: 1, fleet_epoch: f.fleet.epoch });
    }
    for (let i = 0; i < all.length; i++) {
      const rest = await readEvents(await events(after(all[i]!.id!)), untilBeat);
      expect(rest.filter((e) => !isBeat(e)).map((e) => e.id)).toEqual(all.slice(i + 1).map((e) => e.id));
      // The heartbeat names the position reached: resuming from it loses nothing.
      expect(rest.at(-1)!.data.cursor).toBe(all.at(-1)!.id);
    }
  });

  test("a change signal that changes nothing visible is not an event; a live stream gets new events as they happen", async () => {
    f = await startFleetGateway();
    await f.addProject(hex(1));
    const cursor = await catalogCursor();
    await f.gw.ctx.fleetChanges.touch({ kind: "project", id: hex(1) });
    const res = await events(after(cursor));
    const got = readEvents(res, (list) => list.filter((e) => !isBeat(e)).length >= 2);
    await until(() => f.fleet.openStreams === 1, "the stream to open");
    await f.addProject(hex(2));
    await f.removeProject(hex(1));
    const list = (await got).filter((e) => !isBeat(e));
    expect(list.map((e) => [e.data.type, e.data.project?.project_id ?? e.data.project_id])).toEqual([
      ["project_upserted", hex(2)],
      ["project_removed", hex(1)],
    ]);
    await until(() => f.fleet.openStreams === 0, "the stream to be released");
  });

  test("the session registry's writes in quick succession are each an event: a writer awaits its announcement", async () => {
    f = await startFleetGateway();
    await f.addProject(hex(1));
    const start = await catalogCursor();
    const { db, pepper, fleetChanges } = f.gw.ctx;
    const registry = new SessionRegistry(db, f.gw.clock, fleetChanges, new ServiceCredentials(db, pepper, f.gw.clock));
    await registry.insert({ id: "ses_q", projectId: hex(1), launchMode: "project_direct", sessionDir: "/srv/s", worktreePath: null, worktreeBranch: null });
    expect(await registry.transition("ses_q", ["starting"], "running", "daemon_healthy", undefined, { port: 1 })).toBe(true);
    await registry.update("ses_q", { daemonEpoch: "ep1" });
    expect(await registry.transition("ses_q", ["running"], "stopped", "stop")).toBe(true);
    await registry.remove("ses_q");
    const all = (await readEvents(await events(after(start)), untilBeat)).filter((e) => !isBeat(e));
    expect(all.map((e) => [e.data.type, e.data.session?.state, e.data.session?.daemon_epoch])).toEqual([
      ["session_upserted", "starting", null],
      ["session_upserted", "running", null],
      ["session_upserted", "running", "ep1"],
      ["session_upserted", "stopped", "ep1"],
      ["session_removed", undefined, undefined],
    ]);
  });

  test("the eventsource client resumes with Last-Event-ID after a dropped connection: every event once", async () => {
    f = await startFleetGateway();
    const start = await catalogCursor();
    for (let i = 0; i < 8; i++) await f.addProject(hex(i));
    const lastEventIds: (string | null)[] = [];
    let calls = 0;
    const es = new EventSource(`${f.gw.url}/api/v1/events${after(start)}`, {
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers as HeadersInit);
        lastEventIds.push(headers.get("last-event-id"));
        headers.set("Authorization", `Bearer ${f.token}`);
        const res = await fetch(input, { ...init, headers });
        return ++calls === 1 ? cutAfterEvents(res, 3) : res;
      },
    });
    const seen: string[] = [];
    es.onmessage = (e) => {
      const data = JSON.parse(e.data);
      if (data.type === "project_upserted") seen.push(data.project.project_id);
    };
    await until(() => seen.length >= 8, "all events through the eventsource client");
    await f.addProject(hex(8));
    await until(() => seen.length >= 9, "a live event after the resume");
    es.close();
    expect(calls).toBe(2);
    expect(lastEventIds[0]).toBeNull();
    expect(lastEventIds[1]).not.toBeNull();
    expect(seen).toEqual(Array.from({ length: 9 }, (_, i) => hex(i)));
  }, 15_000);

  test("heartbeats: one when the stream opens, then one each period of the (fake) scheduler", async () => {
    f = await startFleetGateway();
    await f.addProject(hex(1));
    const cursor = await catalogCursor();
    const res = await events(after(cursor));
    const beats = readEvents(res, (list) => list.filter(isBeat).length >= 3);
    await until(() => f.fleet.openStreams === 1, "the stream to open");
    f.scheduler.fire(15_000);
    f.gw.clock.advance(15_000);
    f.scheduler.fire(15_000);
    const list = await beats;
    expect(list.every(isBeat)).toBe(true);
    expect(list.map((e) => e.data.interval_seconds)).toEqual([15, 15, 15]);
    expect(list.map((e) => e.data.cursor)).toEqual([cursor, cursor, cursor]);
    expect(list[2]!.data.at).toBe(new Date(f.gw.clock.now()).toISOString());
  });
});

describe("cursor abuse", () => {
  async function code(query: string, headers: Record<string, string> = {}) {
    const res = await events(query, headers);
    return { status: res.status, text: await res.text() };
  }

  test("repeated or unknown keys and empty or undecodable values: 400 {\"code\":\"invalid_query\"}", async () => {
    f = await startFleetGateway();
    const cursor = encodeURIComponent(await catalogCursor());
    for (const q of [`?after=${cursor}&after=${cursor}`, `?expected_epoch=a&expected_epoch=a`, "?after=", "?cursor=x", "?after=%E0%A4%A", `?after=${cursor}&x=1`]) {
      expect(await code(q)).toEqual({ status: 400, text: '{"code":"invalid_query"}' });
    }
  });

  test("forged, malformed or foreign-kind cursors: 400 invalid_cursor", async () => {
    f = await startFleetGateway();
    await f.addProject(hex(1));
    const { cursor, snapshot } = (await f.json("/api/v1/catalog")).body;
    const [body, mac] = cursor.split(".");
    const payload = JSON.parse(Buffer.from(body, "base64url").toString());
    const ahead = `${Buffer.from(JSON.stringify({ ...payload, p: "999" })).toString("base64url")}.${mac}`;
    for (const bad of ["garbage", ahead, `${body}.${"A".repeat(22)}`, snapshot]) {
      const res = await code(after(bad));
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text).code).toBe("invalid_cursor");
    }
    expect(JSON.parse((await code("", { "Last-Event-ID": "garbage" })).text).code).toBe("invalid_cursor");
  });

  test("the fleet epoch belongs to the database: a restarted fleet keeps it and resumes its cursors; another database's cursor or epoch: 410 reset_required", async () => {
    const pepper = sharedPepper();
    f = await startFleetGateway({}, { auth: pepper });
    await f.addProject(hex(1));
    const old = await catalogCursor();
    const epoch = f.fleet.epoch;
    f.fleet = installFleet(f.gw.ctx, { scheduler: f.scheduler });
    await f.fleet.ready;
    expect(f.fleet.epoch).toBe(epoch);
    await f.addProject(hex(2));
    const resumed = (await readEvents(await events(`${after(old)}&expected_epoch=${epoch}`), untilBeat)).filter((e) => !isBeat(e));
    expect(resumed.map((e) => e.data.project.project_id)).toEqual([hex(2)]);

    // Another gateway database, the same pepper: its tokens verify, but they name another epoch.
    const other = await startFleetGateway({}, { auth: pepper });
    try {
      expect(other.fleet.epoch).not.toBe(epoch);
      for (const q of [after(old), `?expected_epoch=${epoch}`]) {
        const res = await other.get(`/api/v1/events${q}`);
        expect(res.status).toBe(410);
        expect(JSON.parse(await res.text()).code).toBe("reset_required");
      }
      const fresh = (await other.json("/api/v1/catalog")).body.cursor;
      expect((await other.get(`/api/v1/events${after(fresh)}&expected_epoch=${other.fleet.epoch}`)).status).toBe(200);
    } finally {
      await other.stop();
    }
  });

  test("rows changed without their event (the writer died between its commit and its announcement) are announced when a fleet starts", async () => {
    f = await startFleetGateway();
    await f.addProject(hex(1));
    await f.addProject(hex(2));
    const cursor = await catalogCursor();
    const { db, clock } = { db: f.gw.ctx.db, clock: f.gw.clock };
    clock.advance(1000);
    await db.insert(db.t.projects).values({ id: hex(3), path: "/srv/unannounced", configName: "fleet-cfg", registeredAt: clock.now(), updatedAt: clock.now() });
    await db.update(db.t.projects).set({ path: "/srv/moved", updatedAt: clock.now() }).where(eq(db.t.projects.id, hex(2)));
    await db.delete(db.t.projects).where(eq(db.t.projects.id, hex(1)));
    f.fleet = installFleet(f.gw.ctx, { scheduler: f.scheduler });
    await f.fleet.ready;
    const list = (await readEvents(await events(after(cursor)), untilBeat)).filter((e) => !isBeat(e));
    expect(list.map((e) => [e.data.type, e.data.project?.project_id ?? e.data.project_id, e.data.project?.path])).toEqual([
      ["project_upserted", hex(2), "/srv/moved"],
      ["project_upserted", hex(3), "/srv/unannounced"],
      ["project_removed", hex(1), undefined],
    ]);
    // A second start finds nothing missing.
    f.fleet = installFleet(f.gw.ctx, { scheduler: f.scheduler });
    await f.fleet.ready;
    expect(f.fleet.journal.after(await f.fleet.journal.resolve(list.at(-1)!.id!))).toEqual([]);
  });

  test("a cursor older than the journal keeps (records bound, age bound): 410 cursor_too_old", async () => {
    f = await startFleetGateway({ journalRecords: 5 });
    const start = await catalogCursor();
    for (let i = 0; i < 4; i++) await f.addProject(hex(i));
    expect((await events(after(start))).status).toBe(200);
    await f.addProject(hex(4));
    await f.addProject(hex(5));
    expect(JSON.parse((await code(after(start))).text)).toMatchObject({ code: "cursor_too_old" });
    expect(f.fleet.journal.retained.records).toBe(5);
    const recent = await catalogCursor();
    f.gw.clock.advance(299_000);
    expect((await events(after(recent))).status).toBe(200);
    f.gw.clock.advance(1_000);
    // The cursor names the newest event; that event has aged out, but nothing after it is lost.
    expect((await events(after(recent))).status).toBe(200);
    await f.addProject(hex(6));
    f.gw.clock.advance(300_000);
    await f.addProject(hex(7));
    const res = await code(after(recent));
    expect(res.status).toBe(410);
    expect(JSON.parse(res.text).code).toBe("cursor_too_old");
  });

  test("the journal's byte bound removes records too", async () => {
    f = await startFleetGateway({ journalBytes: 4096 });
    const start = await catalogCursor();
    for (let i = 0; i < 20; i++) await f.addProject(hex(i), `/srv/${"x".repeat(500)}/${i}`);
    expect(f.fleet.journal.retained.bytes).toBeLessThanOrEqual(4096);
    expect(f.fleet.journal.retained.records).toBeLessThan(20);
    expect(JSON.parse(await (await events(after(start))).text()).code).toBe("cursor_too_old");
  });
});

describe("streams that end", () => {
  // Bun checks idle connections every few seconds: without the route lifting the timeout, this stream is
  // cut about 4 s in.
  test("a quiet stream outlives the server's idle timeout", async () => {
    f = await startFleetGateway({}, { idleTimeoutSecs: 1 });
    const res = await events(after(await catalogCursor()));
    const got = readEvents(res, (list) => list.some((e) => e.data.type === "project_upserted"));
    await until(() => f.fleet.openStreams === 1, "the stream to open");
    await Bun.sleep(6000);
    await f.addProject(hex(1));
    expect((await got).at(-1)!.data).toMatchObject({ type: "project_upserted", project: { project_id: hex(1) } });
  }, 20_000);

  test("revoking the token that opened a stream ends it", async () => {
    f = await startFleetGateway();
    const res = await events(after(await catalogCursor()));
    const ended = readEvents(res, () => false);
    await until(() => f.fleet.openStreams === 1, "the stream to open");
    const [pat] = await f.gw.ctx.pats.list((await f.gw.ctx.principals.list())[0]!.id);
    await f.gw.ctx.pats.revoke(pat!.id);
    expect((await ended).filter((e) => !isBeat(e))).toEqual([]);
    expect(f.fleet.openStreams).toBe(0);
  });

  test("a consumer that falls further behind than the byte bound gets a reset event and the stream ends", async () => {
    f = await startFleetGateway({ journalBytes: 256 * 1024 });
    const cursor = await catalogCursor();
    const socket = connect(f.gw.server.port!, "127.0.0.1");
    let received = "";
    socket.on("data", (d) => (received += d.toString("latin1")));
    await new Promise((r) => socket.once("connect", r));
    socket.write(`GET /api/v1/events${after(cursor)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${f.token}\r\n\r\n`);
    await until(() => received.includes('"type":"heartbeat"'), "the stream to open");
    socket.pause();
    for (let i = 0; i < 400; i++) {
      await f.addProject(hex(i), `/srv/${"y".repeat(64 * 1024)}/${i}`);
      await Bun.sleep(0);
    }
    expect(f.fleet.openStreams).toBe(0);
    socket.resume();
    await until(() => received.includes('"type":"reset"'), "the reset event");
    expect(received).toContain('"code":"reset_required"');
    socket.destroy();
  }, 30_000);
});

/** A response whose body ends after `n` project events: a connection lost mid-stream. */
function cutAfterEvents(res: Response, n: number): Response {
  const reader = res.body!.getReader();
  let seen = "";
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      seen += new TextDecoder().decode(value);
      const blocks = seen.split("\n\n").filter((b) => b.includes("project_upserted"));
      if (blocks.length < n) return;
      controller.enqueue(new TextEncoder().encode(`${blocks.slice(0, n).join("\n\n")}\n\n`));
      await reader.cancel();
      controller.close();
    },
  });
  return new Response(body, { status: res.status, headers: res.headers });
}
