// Stopped history through the gateway against a real session store: a daemon (test/daemon/harness.ts)
// runs a few turns with images, stops and is shut down; the gateway then reads its session dir read-only.
// Items are the daemon's own projection, pages are signed, attachments are read by adjacent ranges with
// every range error, checkpoints expire (fake clock) and are evicted by count and by the spool bound.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initSessionDir, openSession, STORE_FILE } from "../../../src/daemon/store/index.ts";
import { startHarness } from "../../daemon/harness.ts";
import { type FleetGateway, startFleetGateway } from "./helpers.ts";

const PNG = Buffer.from(Array.from({ length: 100 }, (_, i) => i));
let dir: string;
/** The daemon's own answer for the same store, captured while it served it. */
let daemonItems: any[];
let f: FleetGateway;

beforeAll(async () => {
  const h = await startHarness({ engine: { reply: (p) => `echo: ${p}` } });
  await h.post("/prompt", { text: "look", images: [{ media_type: "image/png", data_base64: PNG.toString("base64") }] });
  await h.engine().idle();
  for (let i = 0; i < 4; i++) {
    await h.post("/prompt", { text: `turn ${i}` });
    await h.engine().idle();
  }
  await h.post("/prompt", { text: "broken image", images: [{ media_type: "image/png", data_base64: "" }] });
  await h.engine().idle();
  expect((await h.post("/session/stop", {})).status).toBe(200);
  daemonItems = (await (await h.get("/history")).json()).items;
  await h.stop();
  dir = h.dir;
  f = await startFleetGateway({ historyPageItems: 5, attachmentResponseBytes: 64 });
  await f.addProject("00000001");
  await f.addSession("ses_stopped", { projectId: "00000001", state: "stopped", sessionDir: dir });
});
afterAll(() => f.stop());

async function history(id: string, query = "") {
  return f.json(`/api/v1/sessions/${id}/history${query}`);
}
const cp = (token: string) => `?checkpoint=${encodeURIComponent(token)}`;

describe("stopped history pages", () => {
  test("the first request captures a checkpoint; signed next_page tokens walk the daemon's items once; the store is not written", async () => {
    // An empty -wal left by SQLite's read-only open holds no data: it counts as absent.
    const fileHash = (n: string) => {
      const bytes = existsSync(join(dir, n)) ? readFileSync(join(dir, n)) : null;
      return bytes && bytes.length > 0 ? Bun.hash(bytes).toString() : "-";
    };
    const digest = () => [STORE_FILE, `${STORE_FILE}-wal`].map(fileHash).join("/");
    const before = digest();
    const first = await history("ses_stopped");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ version: 1, session_id: "ses_stopped", total_items: daemonItems.length });
    expect(first.body.items).toHaveLength(5);
    const all = [...first.body.items];
    let page = first.body.next_page;
    while (page) {
      const next = await history("ses_stopped", `${cp(first.body.checkpoint)}&page=${encodeURIComponent(page)}`);
      expect(next.status).toBe(200);
      expect(next.body.checkpoint).toBe(first.body.checkpoint);
      all.push(...next.body.items);
      page = next.body.next_page;
    }
    expect(all).toEqual(daemonItems);
    expect(digest()).toBe(before);
  });

  test("page and checkpoint tokens that were not issued for this read: 400 invalid_checkpoint", async () => {
    const first = (await history("ses_stopped")).body;
    await f.addSession("ses_other", { projectId: "00000001", state: "stopped", sessionDir: dir });
    const otherCp = (await history("ses_other")).body.checkpoint;
    const cases = [
      `${cp(first.checkpoint)}&page=${encodeURIComponent(`${first.next_page}x`)}`,
      `?page=${encodeURIComponent(first.next_page)}`,
      "?checkpoint=nope",
      cp(otherCp),
      `${cp(first.checkpoint)}&page=${encodeURIComponent((await history("ses_other")).body.next_page)}`,
    ];
    for (const q of cases) expect([q, (await history("ses_stopped", q)).body.code]).toEqual([q, "invalid_checkpoint"]);
    expect((await history("ses_stopped", `${cp(first.checkpoint)}&checkpoint=x`)).text).toBe('{"code":"invalid_query"}');
    expect((await history("ses_stopped", "?offset=1")).text).toBe('{"code":"invalid_query"}');
  });

  test("starting or running sessions, unknown sessions, missing stores and unfinalized stores", async () => {
    await f.addSession("ses_running", { projectId: "00000001", state: "running", sessionDir: dir });
    await f.addSession("ses_nodir", { projectId: "00000001", state: "stopped" });
    await f.addSession("ses_empty", { projectId: "00000001", state: "stopped", sessionDir: mkdtempSync(join(tmpdir(), "fleet-empty-")) });
    // A daemon killed mid-session leaves a store that was never finalized.
    const crashed = join(mkdtempSync(join(tmpdir(), "fleet-crashed-")), "s");
    initSessionDir(crashed, "ses_crashedstore", { project: "/tmp/p" }).close();
    await f.addSession("ses_crashed", { projectId: "00000001", state: "failed", sessionDir: crashed });
    const cases: [string, number, string][] = [
      ["ses_running", 409, "history_requires_stopped"],
      ["ses_unknown", 404, "history_unavailable"],
      ["bad%20id", 404, "history_unavailable"],
      ["ses_nodir", 404, "history_unavailable"],
      ["ses_empty", 404, "history_unavailable"],
      ["ses_crashed", 409, "history_not_finalized"],
    ];
    for (const [id, status, code] of cases) {
      const res = await history(id);
      expect([id, res.status, res.body.code]).toEqual([id, status, code]);
    }
  });

  test("a source that changes after capture (the session was resumed) is 409 history_source_changed", async () => {
    const copy = join(mkdtempSync(join(tmpdir(), "fleet-copy-")), "s");
    cpSync(dir, copy, { recursive: true });
    await f.addSession("ses_copy", { projectId: "00000001", state: "stopped", sessionDir: copy });
    const first = (await history("ses_copy")).body.checkpoint;
    const store = openSession(copy);
    store.appendEvents([{ type: "notice", level: "info", message: "resumed elsewhere" }]);
    store.close();
    const res = await history("ses_copy", cp(first));
    expect([res.status, res.body.code]).toEqual([409, "history_source_changed"]);
    expect((await history("ses_copy")).status).toBe(200);
  });
});

describe("attachments", () => {
  test("adjacent ranges reassemble the bytes; range, size and availability errors have their codes", async () => {
    const { body } = await history("ses_stopped");
    const images = daemonItems.flatMap((i: any) => (i.kind === "user_message" ? i.payload.content.filter((c: any) => c.type === "image") : []));
    const [good, missing] = images;
    const read = (id: string, q: string) => f.json(`/api/v1/sessions/ses_stopped/attachments/${id}${cp(body.checkpoint)}${q}`);
    const parts: Buffer[] = [];
    for (let offset = 0; offset < PNG.length; ) {
      const length = Math.min(48, PNG.length - offset);
      const res = await read(good.artifact_id, `&offset=${offset}&length=${length}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ artifact_id: good.artifact_id, media_type: "image/png", total_length: PNG.length, offset });
      parts.push(Buffer.from(res.body.data_base64, "base64"));
      offset += length;
    }
    expect(Buffer.concat(parts).equals(PNG)).toBe(true);
    const cases: [string, string, number, string][] = [
      [good.artifact_id, "&offset=100&length=1", 400, "attachment_range_invalid"],
      [good.artifact_id, "&offset=0&length=0", 400, "attachment_range_invalid"],
      [good.artifact_id, "&offset=90&length=20", 400, "attachment_range_invalid"],
      [good.artifact_id, "&offset=99999999999999999999&length=1", 400, "attachment_range_invalid"],
      [good.artifact_id, "&offset=0&length=49", 413, "attachment_too_large"],
      ["att_not_in_checkpoint", "&offset=0&length=1", 404, "attachment_not_found"],
      [missing.artifact_id, "&offset=0&length=1", 404, "history_unavailable"],
      [good.artifact_id, "&offset=abc", 400, "invalid_query"],
      [good.artifact_id, "&offset=1&offset=2", 400, "invalid_query"],
      [good.artifact_id, "&offset=-1", 400, "invalid_query"],
    ];
    for (const [id, q, status, code] of cases) {
      const res = await read(id, q);
      expect([q, res.status, res.body.code]).toEqual([q, status, code]);
    }
    const none = await f.json(`/api/v1/sessions/ses_stopped/attachments/${good.artifact_id}?offset=0&length=1`);
    expect([none.status, none.body.code]).toEqual([400, "invalid_checkpoint"]);
  });
});

describe("checkpoint lifetime and spool bounds", () => {
  test("checkpoints expire after 10 minutes (fake clock): 410 snapshot_expired; at most 8 are kept", async () => {
    const first = (await history("ses_stopped")).body.checkpoint;
    f.gw.clock.advance(599_000);
    expect((await history("ses_stopped", cp(first))).status).toBe(200);
    f.gw.clock.advance(1_000);
    const expired = await history("ses_stopped", cp(first));
    expect([expired.status, expired.body.code]).toEqual([410, "snapshot_expired"]);
    const tokens: string[] = [];
    for (let i = 0; i < 9; i++) tokens.push((await history("ses_stopped")).body.checkpoint);
    expect(f.fleet.history.retained.captures).toBe(8);
    expect((await history("ses_stopped", cp(tokens[0]!))).body.code).toBe("snapshot_expired");
    expect((await history("ses_stopped", cp(tokens[1]!))).status).toBe(200);
  });

  test("the spool's byte bound evicts older captures; a history larger than the spool is 413 fleet_capacity_exceeded", async () => {
    const size = f.fleet.history.retained.bytes / f.fleet.history.retained.captures;
    const g = await startFleetGateway({ historySpoolBytes: Math.ceil(size * 2.5) });
    try {
      await g.addProject("00000001");
      await g.addSession("ses_s", { projectId: "00000001", state: "stopped", sessionDir: dir });
      const tokens: string[] = [];
      for (let i = 0; i < 3; i++) tokens.push((await g.json("/api/v1/sessions/ses_s/history")).body.checkpoint);
      expect(g.fleet.history.retained.captures).toBe(2);
      expect((await g.json(`/api/v1/sessions/ses_s/history${cp(tokens[0]!)}`)).body.code).toBe("snapshot_expired");
      expect((await g.json(`/api/v1/sessions/ses_s/history${cp(tokens[2]!)}`)).status).toBe(200);
    } finally {
      await g.stop();
    }
    const tiny = await startFleetGateway({ historySpoolBytes: 1000 });
    try {
      await tiny.addProject("00000001");
      await tiny.addSession("ses_s", { projectId: "00000001", state: "stopped", sessionDir: dir });
      const res = await tiny.json("/api/v1/sessions/ses_s/history");
      expect([res.status, res.body.code]).toEqual([413, "fleet_capacity_exceeded"]);
    } finally {
      await tiny.stop();
    }
  });
});
