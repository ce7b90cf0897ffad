// The snapshot's `active` field over real HTTP with a config-built engine: the facet and model a session
// runs with are known before its first turn, follow /facet and /model (session state, no new catalog
// revision), survive a daemon restart, and are null once the session is stopped.
import { afterEach, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { SyncSnapshot } from "../../src/protocol/sync-shapes.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import { makeProject } from "../agent/harness.ts";
import { TOKEN, tempSessionDir } from "./harness.ts";

let running: RunningDaemon | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const auth = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };

// No turn runs here, so the provider is never called.
const CONFIG = `providers:
  fake: { kind: { type: custom_a_compatible }, url: "http://127.0.0.1:9", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  m: { provider: fake, class: full, context_window: 100000 }
  big: { provider: fake, class: full, context_window: 200000 }
defaults: { full: m }
active_session: { default_facet: plan }
`;
const REVIEW = "---\ndescription: Reviews the change\nmodel: big\n---\nYou review.\n";

async function sync(): Promise<Record<string, any>> {
  const res = await fetch(`${running!.url}/sync`, { headers: auth });
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(Value.Check(SyncSnapshot, body)).toBe(true);
  return body;
}

async function command(name: string, args: string[]): Promise<void> {
  const res = await fetch(`${running!.url}/commands/${name}`, { method: "POST", headers: auth, body: JSON.stringify({ args }) });
  expect(res.status).toBe(200);
}

describe("GET /sync: active facet and model", () => {
  test("known before the first turn, follows /facet and /model without a new catalog revision, kept across a restart, null when stopped", async () => {
    const p = makeProject(CONFIG, { ".agent/facets/review.md": REVIEW });
    const dir = tempSessionDir();
    const start = async () => {
      // The project layer is this test's own setup (its provider and models): trusted for the run.
      const { engineFactory } = configuredEngine(p.env, false, { untrusted: "keep" });
      running = await startDaemon({ sessionDir: dir, project: p.root, credential: TOKEN, engineFactory, limits: { heartbeatMs: 0 } });
    };
    await start();
    const fresh = await sync();
    expect(fresh.active).toEqual({ facet: "plan", model: "m", sandbox: "off", autonomy: "ask" });
    expect(fresh.turn.turn_id).toBeNull();

    // The review facet pins `big`; /model then sets the session's own model, even in a pinned facet.
    await command("facet", ["review"]);
    expect((await sync()).active).toEqual({ facet: "review", model: "big", sandbox: "off", autonomy: "ask" });
    await command("model", ["m"]);
    const switched = await sync();
    expect(switched.active).toEqual({ facet: "review", model: "m", sandbox: "off", autonomy: "ask" });
    expect(switched.catalog_revision).toBe(fresh.catalog_revision);

    await running!.stop();
    running = undefined;
    await start();
    expect((await sync()).active).toEqual({ facet: "review", model: "m", sandbox: "off", autonomy: "ask" });

    const stop = await fetch(`${running!.url}/session/stop`, { method: "POST", headers: auth, body: "{}" });
    expect(stop.status).toBe(200);
    const stopped = await sync();
    expect(stopped.session_state).toBe("stopped");
    expect(stopped.active).toBeNull();
  });
});
