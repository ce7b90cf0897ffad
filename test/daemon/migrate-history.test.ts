// Stopped history of a session still in layout 1, read through the gateway as a user would: read-only
// (the dir is byte-for-byte untouched, nothing is migrated), projected from the old format in memory with
// `historical_secret_coverage_unknown` coverage, `historical_unknown` attribution where the facet or model
// cannot be established, and an image without bytes flagged unavailable. Mid-migration the untouched
// original is read; once migrated, the same items come with captured coverage.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSession } from "../../src/daemon/store/index.ts";
import { migrateV1ToV2 } from "../../src/daemon/store/migrate/migrate-v1-v2.ts";
import { type FleetGateway, startFleetGateway } from "../gateway/fleet/helpers.ts";
import { FIXTURE_STORE_HASH, hashFile, hiddenEntries, v1Copy } from "./migrate-helpers.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
let f: FleetGateway;
let n = 0;

beforeAll(async () => {
  f = await startFleetGateway();
  await f.addProject("00000001");
});
afterAll(() => f.stop());

/** Registers a stopped gateway session over `dir` and reads its history. */
async function historyOf(dir: string) {
  const id = `ses_legacy${++n}`;
  await f.addSession(id, { projectId: "00000001", state: "stopped", sessionDir: dir });
  const res = await f.json(`/api/v1/sessions/${id}/history`);
  expect(res.status).toBe(200);
  return { id, body: res.body };
}

type Item = { kind: string; attribution: { facet: string; model: string }; secret_coverage: string; payload: any };
const images = (items: Item[]) => items.flatMap((i) => (i.kind === "user_message" ? i.payload.content.filter((c: { type: string }) => c.type === "image") : []));

describe("stopped history of a layout-1 store", () => {
  test("is read-only, marks coverage unknown, keeps attribution, flags the image without bytes unavailable", async () => {
    const { sessions, dir } = v1Copy();
    const before = readdirSync(dir).sort();
    const { id, body } = await historyOf(dir);
    const items = body.items as Item[];
    expect(items.map((i) => i.kind).filter((k) => k === "turn_completed")).toHaveLength(2);
    expect(items.some((i) => i.kind === "tool_result" && i.payload.result.name === "read")).toBe(true);
    expect(new Set(items.map((i) => i.secret_coverage))).toEqual(new Set(["historical_secret_coverage_unknown"]));
    expect(new Set(items.map((i) => JSON.stringify(i.attribution)))).toEqual(new Set([JSON.stringify({ facet: "execute", model: "test-scripted" })]));
    const [good, lost] = images(items);
    expect(good).toMatchObject({ media_type: "image/png", unavailable: false });
    expect(lost).toMatchObject({ media_type: "image/png", unavailable: true });
    const bytes = await f.json(`/api/v1/sessions/${id}/attachments/${good.artifact_id}?checkpoint=${encodeURIComponent(body.checkpoint)}`);
    expect(bytes.body.data_base64).toBe(PNG);
    const none = await f.json(`/api/v1/sessions/${id}/attachments/${lost.artifact_id}?checkpoint=${encodeURIComponent(body.checkpoint)}`);
    expect(none.body.code).toBe("history_unavailable");
    // Nothing was migrated or written.
    expect(hashFile(join(dir, "session.sqlite"))).toBe(FIXTURE_STORE_HASH);
    expect(existsSync(join(dir, "layout.json"))).toBe(false);
    expect(existsSync(join(dir, "store"))).toBe(false);
    expect(readdirSync(dir).filter((n) => !n.startsWith("session.sqlite-")).sort()).toEqual(before);
    expect(hiddenEntries(sessions)).toEqual([]);
  });

  test("records whose facet and model cannot be established are attributed historical_unknown", async () => {
    const { dir } = v1Copy();
    // A legacy log that lost its first turn start: nothing before the second turn says which facet or model.
    const raw = new Database(join(dir, "session.sqlite"));
    raw.run("DELETE FROM records WHERE type = 'turn_started' AND seq = (SELECT min(seq) FROM records WHERE type = 'turn_started')");
    raw.close();
    const items = (await historyOf(dir)).body.items as Item[];
    const firstTurnEnd = items.findIndex((i) => i.kind === "turn_completed");
    for (const item of items.slice(0, firstTurnEnd + 1)) expect(item.attribution).toEqual({ facet: "historical_unknown", model: "historical_unknown" });
    for (const item of items.slice(firstTurnEnd + 1)) expect(item.attribution).toEqual({ facet: "execute", model: "test-scripted" });
    expect(items.every((i) => i.secret_coverage === "historical_secret_coverage_unknown")).toBe(true);
  });

  test("mid-migration (crash between backup and publish) the untouched original is served", async () => {
    const { dir } = v1Copy();
    const crashAtPublish = (step: string) => {
      if (step === "publish") throw new Error("crash");
    };
    expect(() => migrateV1ToV2(dir, { beforeStep: crashAtPublish })).toThrow("crash");
    expect(existsSync(dir)).toBe(false);
    const items = (await historyOf(dir)).body.items as Item[];
    expect(items.filter((i) => i.kind === "turn_completed")).toHaveLength(2);
    expect(items[0]!.secret_coverage).toBe("historical_secret_coverage_unknown");
    expect(existsSync(dir)).toBe(false);
  });

  test("a store of a newer layout is history_unavailable with a reason and no server path", async () => {
    const { dir } = v1Copy();
    openSession(dir).close();
    writeFileSync(join(dir, "layout.json"), JSON.stringify({ layout: 3 }));
    const id = `ses_legacy${++n}`;
    await f.addSession(id, { projectId: "00000001", state: "stopped", sessionDir: dir });
    const res = await f.json(`/api/v1/sessions/${id}/history`);
    expect(res.body).toEqual({ code: "history_unavailable", message: "the session was written by a newer agent than the gateway's; update agent on the gateway host" });
    expect(res.text).not.toContain(dir);
  });

  test("once migrated the same items are served with captured coverage", async () => {
    const { dir } = v1Copy();
    const legacy = (await historyOf(dir)).body.items as Item[];
    openSession(dir).close();
    const migrated = (await historyOf(dir)).body.items as Item[];
    expect(migrated.every((i) => i.secret_coverage === "captured")).toBe(true);
    const strip = (items: Item[]) => items.map(({ secret_coverage: _c, ...rest }) => rest);
    expect(strip(migrated)).toEqual(strip(legacy));
  });
});
