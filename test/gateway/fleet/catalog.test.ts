// GET /api/v1/catalog over real HTTP: paging by entries and by the 1 MiB JSON bound, later pages bound to
// their snapshot (rows changed since do not leak in), expiry on the fake clock, the store's count bound,
// and every malformed request answered with its exact fleet code.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FLEET_FEATURES } from "../../../src/protocol/features.ts";
import { type FleetGateway, startFleetGateway } from "./helpers.ts";

const MiB = 1024 * 1024;
let f: FleetGateway;
beforeAll(async () => {
  f = await startFleetGateway();
  for (let i = 0; i < 150; i++) await f.addProject(i.toString(16).padStart(8, "0"));
  for (let i = 0; i < 330; i++) await f.addSession(`ses_${String(i).padStart(26, "0")}`, { projectId: "00000001", state: i % 3 === 0 ? "running" : "stopped", daemonEpoch: `ep${i}` });
});
afterAll(() => f.stop());

async function walk(first: any, max = 100): Promise<any[]> {
  const pages = [first];
  let page = first;
  while (page.page.next !== null && pages.length < max) {
    const next = await f.json(`/api/v1/catalog?snapshot=${encodeURIComponent(first.snapshot)}&page=${page.page.next}`);
    expect(next.status).toBe(200);
    page = next.body;
    pages.push(page);
  }
  return pages;
}

describe("catalog paging", () => {
  test("a new catalog: epoch, cursor, features, at most 200 entries a page, every row exactly once", async () => {
    const first = await f.json("/api/v1/catalog");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ version: 1, fleet_epoch: f.fleet.epoch, features: [...FLEET_FEATURES], page: { index: 0, count: 3, next: 1, entries: 200, total_projects: 150, total_sessions: 330 } });
    expect(typeof first.body.cursor).toBe("string");
    const pages = await walk(first.body);
    expect(pages.map((p) => p.page.entries)).toEqual([200, 200, 80]);
    expect(pages.every((p) => p.snapshot === first.body.snapshot && p.cursor === first.body.cursor)).toBe(true);
    const projects = pages.flatMap((p) => p.projects.map((x: any) => x.project_id));
    const sessions = pages.flatMap((p) => p.sessions.map((x: any) => x.session_id));
    expect(new Set(projects).size).toBe(150);
    expect(new Set(sessions).size).toBe(330);
    expect(pages.at(-1).page.next).toBeNull();
    const running = pages.flatMap((p) => p.sessions).find((s: any) => s.state === "running");
    // Never observed yet: no summary, and not a fresh assertion.
    expect(running).toMatchObject({ summary: null, observed_at: null, stale: true, launch_mode: "project_direct" });
    const stopped = pages.flatMap((p) => p.sessions).find((s: any) => s.state === "stopped");
    expect(stopped).toMatchObject({ summary: null, stale: false });
  });

  test("page_size chooses fewer entries a page for a new snapshot", async () => {
    const first = await f.json("/api/v1/catalog?page_size=100");
    expect(first.body.page).toMatchObject({ count: 5, entries: 100 });
    expect((await walk(first.body)).map((p) => p.page.entries)).toEqual([100, 100, 100, 100, 80]);
  });

  test("later pages come from the snapshot: rows added or removed after it do not show", async () => {
    const first = (await f.json("/api/v1/catalog?page_size=200")).body;
    await f.addSession("ses_zzzzzzzzzzzzzzzzzzzzzzzzzz", { projectId: "00000001" });
    await f.removeSession(`ses_${String(329).padStart(26, "0")}`);
    const pages = await walk(first);
    const ids = pages.flatMap((p) => p.sessions.map((s: any) => s.session_id));
    expect(ids).not.toContain("ses_zzzzzzzzzzzzzzzzzzzzzzzzzz");
    expect(ids).toContain(`ses_${String(329).padStart(26, "0")}`);
    const fresh = await walk((await f.json("/api/v1/catalog")).body);
    const now = fresh.flatMap((p) => p.sessions.map((s: any) => s.session_id));
    expect(now).toContain("ses_zzzzzzzzzzzzzzzzzzzzzzzzzz");
    expect(now).not.toContain(`ses_${String(329).padStart(26, "0")}`);
  });

  test("pages never exceed 1 MiB of JSON and are cut where the next entry would not fit", async () => {
    const g = await startFleetGateway();
    try {
      // ~20 KiB paths (multi-byte characters count as bytes): about 52 projects fill a MiB.
      for (let i = 0; i < 120; i++) await g.addProject(i.toString(16).padStart(8, "0"), `/srv/${"é".repeat(10_000)}/${i}`);
      const first = await g.json("/api/v1/catalog");
      const texts = [first.text];
      let page = first.body;
      while (page.page.next !== null) {
        const next = await g.json(`/api/v1/catalog?snapshot=${encodeURIComponent(first.body.snapshot)}&page=${page.page.next}`);
        texts.push(next.text);
        page = next.body;
      }
      expect(texts.length).toBe(3);
      const sizes = texts.map((t) => Buffer.byteLength(t));
      for (const size of sizes) expect(size).toBeLessThanOrEqual(MiB);
      const entry = Buffer.byteLength(JSON.stringify(JSON.parse(texts[0]!).projects[0])) + 1;
      // Full pages: one more entry would have crossed the bound (give or take the few bytes by which the
      // envelope's numbers are narrower than the widest the packer allowed for).
      expect(sizes[0]! + entry).toBeGreaterThan(MiB - 16);
      expect(sizes[1]! + entry).toBeGreaterThan(MiB - 16);
      expect(texts.map((t) => JSON.parse(t).projects.length).reduce((a, b) => a + b)).toBe(120);
    } finally {
      await g.stop();
    }
  });
});

describe("snapshot lifetime and store bounds", () => {
  test("a snapshot expires after 10 minutes on the fake clock: 410 snapshot_expired", async () => {
    const first = (await f.json("/api/v1/catalog")).body;
    f.gw.clock.advance(599_000);
    expect((await f.json(`/api/v1/catalog?snapshot=${encodeURIComponent(first.snapshot)}&page=1`)).status).toBe(200);
    f.gw.clock.advance(1_000);
    const late = await f.json(`/api/v1/catalog?snapshot=${encodeURIComponent(first.snapshot)}&page=1`);
    expect(late.status).toBe(410);
    expect(late.body.code).toBe("snapshot_expired");
  });

  test("at most 8 snapshots are kept: the oldest is evicted by the ninth", async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 9; i++) tokens.push((await f.json("/api/v1/catalog")).body.snapshot);
    expect(f.fleet.snapshots.size).toBe(8);
    expect((await f.json(`/api/v1/catalog?snapshot=${encodeURIComponent(tokens[0]!)}&page=1`)).body).toMatchObject({ code: "snapshot_expired" });
    expect((await f.json(`/api/v1/catalog?snapshot=${encodeURIComponent(tokens[1]!)}&page=1`)).status).toBe(200);
  });

  test("the byte bound evicts too; a catalog larger than the whole store is 413 fleet_capacity_exceeded", async () => {
    const g = await startFleetGateway({ snapshotStoreBytes: 120_000 });
    try {
      for (let i = 0; i < 200; i++) await g.addProject(i.toString(16).padStart(8, "0"), `/srv/${"p".repeat(300)}/${i}`);
      const a = (await g.json("/api/v1/catalog")).body.snapshot;
      const b = (await g.json("/api/v1/catalog")).body.snapshot;
      expect(g.fleet.snapshots.size).toBe(1);
      expect((await g.json(`/api/v1/catalog?snapshot=${encodeURIComponent(a)}`)).body.code).toBe("snapshot_expired");
      expect((await g.json(`/api/v1/catalog?snapshot=${encodeURIComponent(b)}`)).status).toBe(200);
      for (let i = 200; i < 600; i++) await g.addProject(i.toString(16).padStart(8, "0"), `/srv/${"p".repeat(300)}/${i}`);
      const big = await g.json("/api/v1/catalog");
      expect(big.status).toBe(413);
      expect(big.body.code).toBe("fleet_capacity_exceeded");
    } finally {
      await g.stop();
    }
  });
});

describe("malformed catalog requests", () => {
  const cases: [string, number, string][] = [
    ["?page_size=10&page_size=20", 400, "invalid_query"],
    ["?page_size=abc", 400, "invalid_query"],
    ["?page_size=0", 400, "invalid_query"],
    ["?page_size=201", 400, "invalid_query"],
    ["?page=-1", 400, "invalid_query"],
    ["?page=1", 400, "invalid_query"],
    ["?limit=5", 400, "invalid_query"],
    ["?snapshot=", 400, "invalid_query"],
    ["?snapshot=%zz", 400, "invalid_query"],
    ["?snapshot=not-a-token", 400, "invalid_checkpoint"],
  ];
  for (const [query, status, code] of cases) {
    test(`${query} -> ${status} ${code}`, async () => {
      const res = await f.json(`/api/v1/catalog${query}`);
      expect(res.status).toBe(status);
      expect(res.body.code).toBe(code);
      if (code === "invalid_query") expect(res.text).toBe('{"code":"invalid_query"}');
    });
  }

  test("a forged snapshot token, a page past the end, page_size on a later page", async () => {
    const { snapshot } = (await f.json("/api/v1/catalog")).body;
    const [body, mac] = snapshot.split(".");
    const forged = `${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, "base64url").toString()), c: "fsn_other" })).toString("base64url")}.${mac}`;
    expect((await f.json(`/api/v1/catalog?snapshot=${encodeURIComponent(forged)}`)).body.code).toBe("invalid_checkpoint");
    expect((await f.json(`/api/v1/catalog?snapshot=${encodeURIComponent(snapshot)}&page=3`)).text).toBe('{"code":"invalid_query"}');
    expect((await f.json(`/api/v1/catalog?snapshot=${encodeURIComponent(snapshot)}&page_size=5`)).text).toBe('{"code":"invalid_query"}');
  });

  test("no token is 401 with the gateway's byte-identical body", async () => {
    const res = await fetch(`${f.gw.url}/api/v1/catalog`);
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('{"error":"unauthorized"}');
  });
});
