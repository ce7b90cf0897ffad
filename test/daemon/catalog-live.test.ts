// The catalog of a real session (config-built engine, real MCP server): tool servers with live state,
// tool count and tool ids; skills as loaded; a state change (disable via /mcp) publishes a new revision
// and journals daemon_catalog_changed; an unchanged reload keeps the revision, a changed config file does not.
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import { makeProject, scriptedConfig } from "../agent/harness.ts";
import { EVERYTHING_BIN } from "../mcp/helpers.ts";
import { TOKEN, tempSessionDir } from "./harness.ts";

let running: RunningDaemon | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const auth = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
const SKILL = "---\ndescription: Release the project\nuser_invocable: true\n---\nSteps.\n";

describe("live daemon catalog", () => {
  test("tool servers show their state and tools; a change bumps the revision once", async () => {
    const config = scriptedConfig(`mcp_servers:\n  ev: { transport: stdio, command: "${EVERYTHING_BIN}", args: [stdio], pass_env: [PATH] }\n`);
    const p = makeProject(config, { "script.yaml": "responses:\n  - text: ok\n", ".agent/skills/release.md": SKILL });
    const { engineFactory, reload } = configuredEngine(p.env, false, { untrusted: "keep" });
    running = await startDaemon({ sessionDir: tempSessionDir(), project: p.root, credential: TOKEN, engineFactory, reloadCatalog: reload, limits: { heartbeatMs: 0 } });
    const state = async () => (await fetch(`${running!.url}/daemon-state`, { headers: auth })).json();

    // The server connects in the background: the catalog shows it once it is there.
    let first = await state();
    for (let i = 0; i < 300 && first.mcp_servers[0]?.state !== "connected"; i++) {
      await Bun.sleep(50);
      first = await state();
    }
    const ev = first.mcp_servers.find((s: { name: string }) => s.name === "ev");
    expect(ev).toMatchObject({ name: "ev", transport: "stdio", state: "connected" });
    expect(ev.tool_count).toBe(ev.tools.length);
    expect(ev.tools).toContain("mcp__ev__echo");
    expect(Object.keys(ev).sort()).toEqual(["name", "state", "tool_count", "tools", "transport"]);
    expect(JSON.stringify(first)).not.toContain(EVERYTHING_BIN);
    expect(first.tools.find((t: { name: string }) => t.name === "mcp__ev__echo")).toMatchObject({ origin: "mcp" });
    expect(first.skills).toEqual([{ name: "release", description: "Release the project", origin: "project", user_invocable: true, model_invocable: true }]);

    const off = await fetch(`${running.url}/commands/mcp`, { method: "POST", headers: auth, body: JSON.stringify({ args: ["disable", "ev"] }) });
    expect(off.status).toBe(200);
    const second = await state();
    expect(BigInt(second.catalog_revision)).toBeGreaterThan(BigInt(first.catalog_revision));
    expect(second.mcp_servers[0]).toMatchObject({ name: "ev", state: "disabled", tool_count: 0, tools: [] });

    const snap = await (await fetch(`${running.url}/sync`, { headers: auth })).json();
    const res = await fetch(`${running.url}/events?after=${encodeURIComponent(snap.origin_cursor)}`, { headers: auth });
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes(`"catalog_revision":"${second.catalog_revision}"`)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    expect(text).toContain(`"type":"daemon_catalog_changed","catalog_revision":"${second.catalog_revision}"`);

    // A reload with identical content keeps the revision; a changed config file makes a new one.
    const same = await (await fetch(`${running.url}/daemon-state/reload`, { method: "POST", headers: auth })).json();
    expect(same.catalog_revision).toBe(second.catalog_revision);
    writeFileSync(join(p.root, "review.md"), "---\ndescription: Review\n---\nReview the change.\n");
    appendFileSync(join(p.root, ".agent", "config.yaml"), "facets:\n  review: { source: review.md }\n");
    const changed = await (await fetch(`${running.url}/daemon-state/reload`, { method: "POST", headers: auth })).json();
    expect(BigInt(changed.catalog_revision)).toBeGreaterThan(BigInt(second.catalog_revision));
    expect((await state()).facets.map((f: { name: string }) => f.name)).toContain("review");
  }, 30_000);
});
