// Stopped-session history over real HTTP: served only when stopped and finalized, immutable checkpoints
// (expiry on a fake clock, eviction, source change), signed pages, capture-time scrubbing, attachments
// read by adjacent ranges with every range error, and corruption surfaced as 422.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { STORE_FILE } from "../../src/daemon/store/index.ts";
import { type Harness, startHarness, testClock } from "./harness.ts";

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

const SECRET = "sk-live-ABCDEFGHIJKLMNOP0123456789";
const PNG = Buffer.from(Array.from({ length: 100 }, (_, i) => i));

async function stoppedSession(options: Parameters<typeof startHarness>[0] = {}) {
  h = await startHarness({ engine: { reply: (p) => (p.includes("secret") ? `the key is ${SECRET} keep it` : `echo: ${p}`) }, ...options });
  await h.post("/prompt", { text: "look", images: [{ media_type: "image/png", data_base64: PNG.toString("base64") }] });
  await h.engine().idle();
  await h.post("/prompt", { text: "tell me the secret" });
  await h.engine().idle();
  await h.post("/prompt", { text: "broken image", images: [{ media_type: "image/png", data_base64: "" }] });
  await h.engine().idle();
  expect((await h.get("/history")).status).toBe(409);
  const stop = await h.post("/session/stop", {});
  expect(stop.status).toBe(200);
}

async function history(query = "") {
  const res = await h.get(`/history${query}`);
  return { status: res.status, body: await res.json() };
}

describe("stopped-session history", () => {
  test("a running session answers 409 history_requires_stopped; a stopped one takes no commands", async () => {
    h = await startHarness();
    const res = await h.get("/history");
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe("history_requires_stopped");
    await h.post("/session/stop", {});
    const snap = await (await h.get("/sync")).json();
    expect(snap).toMatchObject({ session_state: "stopped", operation_window: null, actions: { prompt: false, history: true } });
    const prompt = await h.post("/prompt", { text: "anyone?" });
    expect(prompt.status).toBe(409);
    expect((await prompt.json()).code).toBe("session_stopped");
  });

  test("the first request captures a checkpoint; items carry attribution; credentials are scrubbed at capture", async () => {
    await stoppedSession();
    const { status, body } = await history();
    expect(status).toBe(200);
    expect(typeof body.checkpoint).toBe("string");
    expect(body.next_page).toBeNull();
    expect(body.total_items).toBe(body.items.length);
    const kinds = body.items.map((i: { kind: string }) => i.kind);
    expect(kinds.filter((k: string) => k === "user_message")).toHaveLength(3);
    expect(kinds.filter((k: string) => k === "turn_completed")).toHaveLength(3);
    expect(body.items.every((i: { attribution: unknown }) => JSON.stringify(i.attribution) === JSON.stringify({ facet: "default", model: "test-model" }))).toBe(true);
    const text = JSON.stringify(body);
    expect(text).not.toContain("ABCDEFGHIJKLMNOP");
    expect(text).toContain("[redacted]");
    // The secret was streamed in pieces split inside it; the journal keeps the original, history does not.
    const deltas = h.running.daemon.store.journal.read(0, 1000).filter((r) => r.type === "part_delta").map((r) => JSON.parse(r.body).delta);
    expect(deltas.join("")).toContain(SECRET);
    expect(deltas.some((d: string) => d.includes(SECRET))).toBe(false);
    const summary = await (await h.get("/sync/summary")).json();
    expect(summary.history_checkpoint).toBe(body.checkpoint);
    expect(summary.history_total_items).toBe(body.total_items);
  });

  test("pages hold at most the page bound; signed next_page tokens walk every item once", async () => {
    await stoppedSession({ limits: { historyPageItems: 4 } });
    const first = await history();
    const all = [...first.body.items];
    let page = first.body.next_page;
    while (page) {
      const next = await history(`?checkpoint=${encodeURIComponent(first.body.checkpoint)}&page=${encodeURIComponent(page)}`);
      expect(next.status).toBe(200);
      expect(next.body.items.length).toBeLessThanOrEqual(4);
      all.push(...next.body.items);
      page = next.body.next_page;
    }
    expect(all.map((i) => i.item_id)).toEqual([...new Set(all.map((i) => i.item_id))]);
    expect(all).toHaveLength(first.body.total_items);
    const forged = await history(`?checkpoint=${encodeURIComponent(first.body.checkpoint)}&page=${encodeURIComponent(`${first.body.next_page}x`)}`);
    expect([forged.status, forged.body.code]).toEqual([400, "invalid_checkpoint"]);
    const noCheckpoint = await history(`?page=${encodeURIComponent(first.body.next_page)}`);
    expect([noCheckpoint.status, noCheckpoint.body.code]).toEqual([400, "invalid_checkpoint"]);
    const badCheckpoint = await history(`?checkpoint=nope`);
    expect([badCheckpoint.status, badCheckpoint.body.code]).toEqual([400, "invalid_checkpoint"]);
  });

  test("checkpoints expire after 10 minutes (fake clock) and are evicted beyond 8", async () => {
    const clock = testClock();
    await stoppedSession({ clock });
    const first = (await history()).body.checkpoint;
    clock.advance(10 * 60_000);
    const expired = await history(`?checkpoint=${encodeURIComponent(first)}`);
    expect([expired.status, expired.body.code]).toEqual([410, "checkpoint_expired"]);
    const tokens: string[] = [];
    for (let i = 0; i < 9; i++) tokens.push((await history()).body.checkpoint);
    expect((await history(`?checkpoint=${encodeURIComponent(tokens[0]!)}`)).status).toBe(410);
    expect((await history(`?checkpoint=${encodeURIComponent(tokens[8]!)}`)).status).toBe(200);
  });

  test("configured secret values (substitutions, secret words) are scrubbed from history too", async () => {
    h = await startHarness({ engine: { reply: () => "the password is hunter2-correct-horse" }, secrets: ["hunter2-correct-horse"] });
    await h.post("/prompt", { text: "what is it" });
    await h.engine().idle();
    await h.post("/session/stop", {});
    const text = JSON.stringify((await history()).body);
    expect(text).not.toContain("hunter2-correct-horse");
    expect(text).toContain("the password is [redacted]");
  });

  test("a change of the source after capture is 409 history_source_changed", async () => {
    await stoppedSession();
    const cp = (await history()).body.checkpoint;
    h.running.daemon.store.appendEvents([{ type: "notice", level: "info", message: "migrated" }]);
    const res = await history(`?checkpoint=${encodeURIComponent(cp)}`);
    expect([res.status, res.body.code]).toEqual([409, "history_source_changed"]);
  });

  test("a corrupt journal is 422 history_corrupt, never an empty transcript", async () => {
    await stoppedSession();
    const raw = new Database(join(h.dir, STORE_FILE));
    raw.run("UPDATE records SET body = 'not json' WHERE seq = 2");
    raw.close();
    const res = await history();
    expect([res.status, res.body.code]).toEqual([422, "history_corrupt"]);
  });
});

describe("attachments", () => {
  test("adjacent ranges reassemble the bytes; range, size and availability errors have their codes", async () => {
    await stoppedSession({ limits: { attachmentResponseBytes: 64 } });
    const { body } = await history();
    const images = body.items.flatMap((i: any) => (i.kind === "user_message" ? i.payload.content.filter((c: any) => c.type === "image") : []));
    const [good, missing] = images;
    expect(good.unavailable).toBe(false);
    expect(missing.unavailable).toBe(true);
    const cp = encodeURIComponent(body.checkpoint);
    const read = (id: string, q: string) => h.get(`/history/attachments/${id}?checkpoint=${cp}${q}`);
    const parts: Buffer[] = [];
    for (let offset = 0; offset < PNG.length; ) {
      const length = Math.min(48, PNG.length - offset);
      const res = await read(good.artifact_id, `&offset=${offset}&length=${length}`);
      expect(res.status).toBe(200);
      const chunk = await res.json();
      expect(chunk).toMatchObject({ artifact_id: good.artifact_id, media_type: "image/png", total_length: PNG.length, offset });
      parts.push(Buffer.from(chunk.data_base64, "base64"));
      offset += length;
    }
    expect(Buffer.concat(parts).equals(PNG)).toBe(true);
    const cases: [string, string, number, string][] = [
      [good.artifact_id, "&offset=100&length=1", 400, "attachment_range_invalid"],
      [good.artifact_id, "&offset=0&length=0", 400, "attachment_range_invalid"],
      [good.artifact_id, "&offset=90&length=20", 400, "attachment_range_invalid"],
      [good.artifact_id, "&offset=0&length=49", 413, "attachment_too_large"],
      ["att_not_in_checkpoint", "&offset=0&length=1", 404, "attachment_not_found"],
      [missing.artifact_id, "&offset=0&length=1", 404, "history_unavailable"],
    ];
    for (const [id, q, status, code] of cases) {
      const res = await read(id, q);
      expect([q, res.status, (await res.json()).code]).toEqual([q, status, code]);
    }
  });
});
