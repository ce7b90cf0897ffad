// The sync surface over real HTTP: auth before anything, loopback Host, the snapshot, ordered replay from
// every position, live follow, cursor errors, query validation.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TokenSigner } from "../../src/protocol/tokens.ts";
import { type Harness, readSse, recordsOf, startHarness, TOKEN } from "./harness.ts";

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

async function promptAndSettle(text: string): Promise<void> {
  const res = await h.post("/prompt", { text });
  expect(res.status).toBe(202);
  await h.engine().idle();
  h.running.daemon.hub.flush();
}

describe("authentication and the edge", () => {
  test("401 without, with a wrong, or with a differently sized token; before the query is looked at", async () => {
    h = await startHarness();
    for (const headers of <Record<string, string>[]>[{}, { Authorization: "Bearer nope" }, { Authorization: `Bearer ${TOKEN}x` }, { Authorization: `Basic ${TOKEN}` }]) {
      const res = await fetch(`${h.url}/sync?x=1&x=2`, { headers });
      expect(res.status).toBe(401);
      const body = await res.json();
      expect(body.code).toBe("unauthorized");
      expect(JSON.stringify(body)).not.toContain(TOKEN);
    }
    // With the token, the same malformed query is an invalid_query: the 401 came first.
    const res = await h.get("/sync?x=1&x=2");
    expect(res.status).toBe(400);
  });

  test("a daemon without a credential rejects every request", async () => {
    h = await startHarness({ credential: null });
    expect((await h.get("/health")).status).toBe(401);
  });

  test("a non-loopback Host is refused (DNS rebinding)", async () => {
    h = await startHarness();
    const res = await fetch(`${h.url}/health`, { headers: { Authorization: `Bearer ${TOKEN}`, Host: "evil.example:80" } });
    expect(res.status).toBe(403);
    expect((await h.get("/health", { Host: "localhost" })).status).toBe(200);
  });

  test("the ready file names the port, pid and epoch", async () => {
    h = await startHarness();
    const ready = JSON.parse(readFileSync(join(h.dir, "daemon.json"), "utf8"));
    expect(ready).toEqual({ port: h.running.server.port, pid: process.pid, epoch: h.running.daemon.epoch });
    const health = await (await h.get("/health")).json();
    expect(health).toMatchObject({ status: "ok", daemon_epoch: ready.epoch });
  });
});

describe("query validation", () => {
  test("repeated keys, unknown keys and unparsable numbers are 400 invalid_query with a JSON message", async () => {
    h = await startHarness();
    for (const path of ["/events?after=a&after=b", "/sync?foo=1", "/history/attachments/att_1?offset=abc", "/history/attachments/att_1?length=-1", "/events?after="]) {
      const res = await h.get(path);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/json");
      const body = await res.json();
      expect(body.code).toBe("invalid_query");
      expect(body.message.length).toBeGreaterThan(5);
    }
  });
});

describe("snapshot, replay and live records", () => {
  test("GET /sync carries epoch, cursor, revision, features, turn state, actions and a window", async () => {
    h = await startHarness();
    const snap = await (await h.get("/sync")).json();
    expect(snap.daemon_epoch).toBe(h.running.daemon.epoch);
    expect(typeof snap.cursor).toBe("string");
    expect(typeof snap.catalog_revision).toBe("string");
    expect(snap.features).toEqual(expect.arrayContaining(["session.sync.v1", "session.history.v1", "session.attachments.v1", "session.targeted-mutations.v1", "daemon.catalog.v1"]));
    expect(snap.turn).toEqual({ busy: false, turn_id: null, queue: [], pending_interrogatives: [] });
    expect(snap.actions.prompt).toBe(true);
    expect(snap.operation_window.window.length).toBeGreaterThan(20);
    expect(Date.parse(snap.operation_window.expires_at)).toBeGreaterThan(Date.now() + 9 * 60_000);
    const summary = await (await h.get("/sync/summary")).json();
    expect(summary).toEqual({ version: 1, daemon_epoch: snap.daemon_epoch, cursor: snap.cursor, busy: false, attention: false, history_checkpoint: "", history_total_items: 0 });
  });

  test("replay from every position returns exactly the records after it, in order", async () => {
    h = await startHarness();
    const origin = (await (await h.get("/sync")).json()).origin_cursor;
    await promptAndSettle("one");
    await promptAndSettle("two");
    const all = recordsOf(await readSse(await h.get(`/events?after=${encodeURIComponent(origin)}`), (ev) => recordsOf(ev).length >= 16));
    expect(all.map((r) => Number(r.seq))).toEqual(all.map((_, i) => i + 1));
    expect(all.filter((r) => r.type === "turn_completed")).toHaveLength(2);
    // Every record carries version 1 and its counter as a string.
    expect(all.every((r) => r.version === 1 && typeof r.seq === "string")).toBe(true);
    const signer = new TokenSigner(h.running.daemon.store.tokenKey(), h.running.daemon.store.id, h.running.daemon.epoch);
    for (let p = 0; p <= all.length; p++) {
      const cursor = h.running.daemon.cursors.encode(p);
      expect(signer.verify("cur", cursor).p).toBe(String(p));
      const want = all.length - p;
      const got = want === 0 ? [] : recordsOf(await readSse(await h.get(`/events?after=${encodeURIComponent(cursor)}`), (ev) => recordsOf(ev).length >= want));
      expect(got.map((r) => r.seq)).toEqual(all.slice(p).map((r) => r.seq));
    }
  });

  test("a frame's id resumes exactly after it; live records follow replay without gaps or duplicates", async () => {
    h = await startHarness({ limits: { frameRecords: 3 } });
    const snap = await (await h.get("/sync")).json();
    await promptAndSettle("first");
    const stream = await h.get(`/events?after=${encodeURIComponent(snap.cursor)}`);
    const reading = readSse(stream, (ev) => recordsOf(ev).filter((r) => r.type === "turn_completed").length >= 2);
    await promptAndSettle("second");
    const events = await reading;
    const frames = events.filter((e) => e.event === "records");
    expect(frames.every((f) => JSON.parse(f.data).records.length <= 3)).toBe(true);
    const seqs = recordsOf(events).map((r) => Number(r.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    // Resume from the id of the third frame: the next record is the one after that frame's last.
    const third = frames[2]!;
    const last = Number(JSON.parse(third.data).records.at(-1).seq);
    const resumed = recordsOf(await readSse(await h.get("/events", { "Last-Event-ID": third.id! }), (ev) => recordsOf(ev).length >= 1));
    expect(Number(resumed[0]!.seq)).toBe(last + 1);
  });

  test("deltas committed together are coalesced, but the final part state is always its own record", async () => {
    h = await startHarness();
    const hub = h.running.daemon.hub;
    for (const delta of ["he", "ll", "o"]) hub.publish({ type: "part_delta", message_id: "msg_1", part_id: "prt_1", delta });
    hub.publish({ type: "part_completed", message_id: "msg_1", part: { id: "prt_1", type: "text", text: "hello" } });
    const stored = hub.flush().map((r) => JSON.parse(r.body));
    expect(stored).toEqual([
      { type: "part_delta", message_id: "msg_1", part_id: "prt_1", delta: "hello" },
      { type: "part_completed", message_id: "msg_1", part: { id: "prt_1", type: "text", text: "hello" } },
    ]);
  });

  test("deltas of two parts committed together stay apart: one record per run of one part, in order", async () => {
    h = await startHarness();
    const hub = h.running.daemon.hub;
    const deltas: [string, string][] = [["prt_1", "Fir"], ["prt_1", "st."], ["prt_2", "Sec"], ["prt_2", "ond."], ["prt_1", "!"]];
    for (const [part_id, delta] of deltas) hub.publish({ type: "part_delta", message_id: "msg_1", part_id, delta });
    const stored = hub.flush().map((r) => JSON.parse(r.body));
    expect(stored.map((r) => [r.part_id, r.delta])).toEqual([["prt_1", "First."], ["prt_2", "Second."], ["prt_1", "!"]]);
  });
});

describe("cursor errors", () => {
  test("forged (an edited session field too), garbled, other-session and other-epoch cursors are told apart", async () => {
    h = await startHarness();
    const daemon = h.running.daemon;
    const good = daemon.cursors.encode(0);
    const [body, mac] = good.split(".");
    const otherSession = new TokenSigner(Buffer.alloc(32, 7), "ses_other", daemon.epoch).sign("cur", { p: "0" });
    const otherEpoch = new TokenSigner(daemon.store.tokenKey(), daemon.store.id, "ep_old").sign("cur", { p: "0" });
    const forged = `${Buffer.from(JSON.stringify({ k: "cur", s: daemon.store.id, e: daemon.epoch, p: "0" })).toString("base64url")}.${mac}A`;
    // This session's cursor with its session field edited: not believed, since the MAC does not hold.
    const forgedSession = `${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, "base64url").toString()), s: "ses_forged" })).toString("base64url")}.${mac}`;
    const cases: [string, number, string][] = [
      ["garbage", 400, "invalid_cursor"],
      [`${body}.${"A".repeat(22)}`, 400, "invalid_cursor"],
      [forged, 400, "invalid_cursor"],
      [otherSession, 400, "invalid_cursor"],
      [forgedSession, 400, "invalid_cursor"],
      [otherEpoch, 409, "epoch_mismatch"],
      [daemon.signer.sign("cur", { p: "999" }), 400, "invalid_cursor"],
      [daemon.signer.sign("win", { w: "x", x: "1" }), 400, "invalid_cursor"],
    ];
    for (const [cursor, status, code] of cases) {
      const res = await h.get(`/events?after=${encodeURIComponent(cursor)}`);
      expect([cursor, res.status]).toEqual([cursor, status]);
      expect((await res.json()).code).toBe(code);
    }
  });

  test("a cursor older than the retained journal is 410 cursor_too_old", async () => {
    h = await startHarness({ limits: { replayRecords: 4 } });
    const old = h.running.daemon.cursors.encode(0);
    await promptAndSettle("fill");
    const res = await h.get(`/events?after=${encodeURIComponent(old)}`);
    expect(res.status).toBe(410);
    expect((await res.json()).code).toBe("cursor_too_old");
    const snap = await (await h.get("/sync")).json();
    expect((await h.get(`/events?after=${encodeURIComponent(snap.origin_cursor)}`)).status).toBe(200);
  });
});
