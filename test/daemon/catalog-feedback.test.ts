// GET /daemon-state (sorted, scrubbed, revisioned; daemon_catalog_changed only on a real change) and the
// feedback artifacts (snapshot, full and zstd modes with their 400/409/413 rules).
import { afterEach, describe, expect, test } from "bun:test";
import type { CatalogContent } from "../../src/daemon/catalog.ts";
import { type Harness, startHarness } from "./harness.ts";

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

function content(extra: Partial<CatalogContent> = {}): CatalogContent {
  return {
    facets: [{ name: "plan", description: "think first" }, { name: "execute", description: "do it" }],
    models: [{ name: "b-model", provider: "main", api_key: "literal-secret-value-123456" }, { name: "a-model", provider: "main" }],
    subagents: [],
    skills: [],
    tools: [{ name: "read", description: "reads; example token Bearer abcdefghijklmnop1234567890" }],
    mcp_servers: [{ name: "files", transport: "stdio", state: "connected", tool_count: 2, tools: ["mcp__files__write", "mcp__files__read"], command: "/usr/bin/secret-server", env: { TOKEN: "x" } } as never],
    extensions: [],
    ...extra,
  };
}

describe("daemon catalog", () => {
  test("a sorted, scrubbed publication with a revision; identical reloads keep it; a change bumps it and is journaled", async () => {
    let current = content();
    h = await startHarness({ catalog: () => current });
    const first = await (await h.get("/daemon-state")).json();
    expect(first.catalog_revision).toBe("1");
    expect(first.facets.map((f: { name: string }) => f.name)).toEqual(["execute", "plan"]);
    expect(first.models.map((m: { name: string }) => m.name)).toEqual(["a-model", "b-model"]);
    const text = JSON.stringify(first);
    expect(text).not.toContain("literal-secret-value");
    expect(text).not.toContain("abcdefghijklmnop");
    expect(first.mcp_servers).toEqual([{ name: "files", transport: "stdio", state: "connected", tool_count: 2, tools: ["mcp__files__read", "mcp__files__write"] }]);

    expect((await (await h.post("/daemon-state/reload")).json()).catalog_revision).toBe("1");
    const journal = () => h.running.daemon.store.journal.read(0, 1000).filter((r) => r.type === "daemon_catalog_changed").map((r) => JSON.parse(r.body));
    h.running.daemon.hub.flush();
    expect(journal()).toEqual([]);

    current = content({ skills: [{ name: "release", description: "cut a release" }] });
    expect((await (await h.post("/daemon-state/reload")).json()).catalog_revision).toBe("2");
    h.running.daemon.hub.flush();
    expect(journal()).toEqual([{ type: "daemon_catalog_changed", catalog_revision: "2" }]);
    const snap = await (await h.get("/sync")).json();
    expect(snap.catalog_revision).toBe("2");
  });
});

describe("feedback artifacts", () => {
  async function catalog() {
    const res = await h.get("/feedback/artifacts");
    expect(res.status).toBe(200);
    const body = await res.json();
    return Object.fromEntries(body.artifacts.map((a: { id: string }) => [a.id, a])) as Record<string, { id: string; version: string; size: number }>;
  }

  test("snapshot, full and zstd modes of a catalog-time artifact, scrubbed", async () => {
    h = await startHarness({ engine: { reply: () => "token sk-live-0123456789ABCDEFGHIJ here" }, limits: { feedbackSnapshotBytes: 100 } });
    await h.post("/prompt", { text: "hi" });
    await h.engine().idle();
    const { "session-journal": journal } = await catalog();
    const v = encodeURIComponent(journal!.version);
    const full = await h.get(`/feedback/artifacts/session-journal?version=${v}&mode=full`);
    expect(full.status).toBe(200);
    const fullText = await full.text();
    expect(fullText.split("\n").filter(Boolean).length).toBeGreaterThan(5);
    expect(fullText).not.toContain("sk-live-0123456789");
    expect(fullText.length).toBe(journal!.size);
    const snapshot = await h.get(`/feedback/artifacts/session-journal?version=${v}`);
    expect(snapshot.headers.get("x-agent-truncated")).toBe("true");
    expect((await snapshot.text()).length).toBe(100);
    const zstd = await h.get(`/feedback/artifacts/session-journal?version=${v}&mode=zstd`);
    expect(zstd.headers.get("content-type")).toBe("application/zstd");
    expect(zstd.headers.get("x-agent-raw-source-bytes")).toBe(String(journal!.size));
    const unpacked = Bun.zstdDecompressSync(new Uint8Array(await zstd.arrayBuffer()));
    expect(new TextDecoder().decode(unpacked)).toBe(fullText);
    // Later records do not change a catalog-time artifact.
    await h.post("/prompt", { text: "more" });
    await h.engine().idle();
    expect(await (await h.get(`/feedback/artifacts/session-journal?version=${v}&mode=full`)).text()).toBe(fullText);
  });

  test("400 for a missing or empty version or an unknown mode, 409 for a stale token, 413 over the zstd bound", async () => {
    h = await startHarness({ limits: { feedbackZstdSourceBytes: 10 } });
    const first = await catalog();
    const v = encodeURIComponent(first["session-meta"]!.version);
    for (const q of ["", "?version=", `?version=${v}&mode=gzip`, `?version=${v}&version=${v}`]) {
      const res = await h.get(`/feedback/artifacts/session-meta${q}`);
      expect([q, res.status, (await res.json()).code]).toEqual([q, 400, "invalid_query"]);
    }
    const tooBig = await h.get(`/feedback/artifacts/session-meta?version=${v}&mode=zstd`);
    expect([tooBig.status, (await tooBig.json()).code]).toEqual([413, "artifact_too_large"]);
    expect((await h.get(`/feedback/artifacts/session-meta?version=${v}&mode=full`)).status).toBe(200);
    await catalog();
    await catalog();
    const stale = await h.get(`/feedback/artifacts/session-meta?version=${v}`);
    expect([stale.status, (await stale.json()).code]).toEqual([409, "artifact_version_stale"]);
  });
});
