// Extensions through a real daemon: the approval is an interrogative clients see in /sync and answer over
// HTTP; the catalog lists only extensions that actually loaded (approved metadata and capabilities, no
// path), and the load publishes a new revision with daemon_catalog_changed on the record stream.
import { afterEach, describe, expect, test } from "bun:test";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import { makeProject, scriptedConfig } from "../agent/harness.ts";
import { installSample, projectExtensionDir, writeExtension } from "../agent/fixtures/extensions/helpers.ts";
import { TOKEN, newOperation, readSse, recordsOf, tempSessionDir } from "./harness.ts";

let running: RunningDaemon | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const auth = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };

describe("extensions in the daemon catalog", () => {
  test("approve over HTTP: the extension loads, the catalog lists it alone and its revision bumps", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - text: ok\n" });
    const dir = installSample(projectExtensionDir(p, "sample"));
    writeExtension(projectExtensionDir(p, "broken"), 'throw new Error("never loads");');
    const { engineFactory, reload } = configuredEngine(p.env, false);
    running = await startDaemon({ sessionDir: tempSessionDir(), project: p.root, credential: TOKEN, engineFactory, reloadCatalog: reload, limits: { heartbeatMs: 0 } });
    const get = async (path: string) => (await fetch(`${running!.url}${path}`, { headers: auth })).json();

    const snap = await get("/sync");
    const questions = snap.turn.pending_interrogatives;
    expect(questions.map((q: { kind: string; name: string }) => [q.kind, q.name])).toEqual([
      ["extension_approval", "broken"],
      ["extension_approval", "sample"],
    ]);
    const sample = questions.find((q: { name: string }) => q.name === "sample");
    expect(sample).toMatchObject({ version: "1.0.0", origin: "project", path: dir, capabilities: ["tools", "system_reminders"] });
    expect(snap.actions.interrogative_response).toBe(true);
    const before = await get("/daemon-state");
    expect(before.extensions).toEqual([]);
    expect(before.tools.some((t: { name: string }) => t.name.startsWith("ext__"))).toBe(false);

    const answer = async (id: string, decision: "approve" | "reject") => {
      const res = await fetch(`${running!.url}/interrogatives/${id}/response`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ answer: { decision }, operation_context: { daemon_epoch: snap.daemon_epoch, window: snap.operation_window.window, operation: newOperation() } }),
      });
      expect(res.status).toBe(200);
    };
    await answer(sample.id, "approve");
    let after = before;
    for (let i = 0; i < 500 && after.extensions.length === 0; i++) {
      await Bun.sleep(5);
      after = await get("/daemon-state");
    }
    expect(after.extensions).toEqual([
      {
        name: "sample",
        version: "1.0.0",
        description: "Greets people and reports the weather (a test fixture).",
        origin: "project",
        capabilities: ["tools", "system_reminders"],
        tools: ["ext__sample__greet", "ext__sample__explode"],
        system_reminders: ["ext__sample__weather"],
      },
    ]);
    expect(JSON.stringify(after.extensions)).not.toContain(dir);
    expect(BigInt(after.catalog_revision)).toBeGreaterThan(BigInt(before.catalog_revision));
    expect(after.tools.find((t: { name: string }) => t.name === "ext__sample__greet")).toMatchObject({ origin: "extension", description: "Greets someone by name and shows the extension's config." });

    // Approved but failing at import: reported, and the catalog still lists only what loaded.
    const broken = questions.find((q: { name: string }) => q.name === "broken");
    await answer(broken.id, "approve");
    const events = await fetch(`${running.url}/events?after=${encodeURIComponent(snap.origin_cursor)}`, { headers: auth });
    const records = recordsOf(await readSse(events, (evs) => recordsOf(evs).some((r) => r.type === "notice" && String(r.message).startsWith("extension broken"))));
    expect(records.filter((r) => r.type === "daemon_catalog_changed").map((r) => r.catalog_revision)).toEqual([after.catalog_revision]);
    expect(records.find((r) => r.type === "notice" && String(r.message).startsWith("extension broken"))!.message).toContain("failed to load and was skipped: importing");
    const last = await get("/daemon-state");
    expect(last.catalog_revision).toBe(after.catalog_revision);
    expect(last.extensions.map((e: { name: string }) => e.name)).toEqual(["sample"]);
  }, 30_000);
});
