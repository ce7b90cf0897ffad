// The status line names the facet and model from the moment the view is connected (the snapshot's
// `active`), before any turn, against a real daemon with a config-built engine; /facet then changes it.
// And the fold's rule: records replayed after a snapshot that are older than it do not undo it.
import { afterEach, describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { DaemonClient } from "../../src/client/daemon-client.ts";
import { startDaemon } from "../../src/daemon/serve.ts";
import type { SyncRecord } from "../../src/protocol/sync-record.ts";
import type { SyncSnapshotBody } from "../../src/protocol/sync-shapes.ts";
import { App } from "../../tui/app.tsx";
import { Connection } from "../../tui/connection.ts";
import { SessionActions } from "../../tui/session-actions.ts";
import { applyRecords, applySnapshot, emptyViewState } from "../../tui/view-state.ts";
import { ViewStore } from "../../tui/view-store.ts";
import { makeProject } from "../agent/harness.ts";
import { TOKEN, tempSessionDir } from "../daemon/harness.ts";
import { testSnapshot } from "./sync-fixtures.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// No turn runs, so the provider is never called.
const CONFIG = `providers:
  fake: { kind: { type: custom_a_compatible }, url: "http://127.0.0.1:9", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  small-model: { provider: fake, class: full, context_window: 100000 }
  big-model: { provider: fake, class: full, context_window: 200000 }
defaults: { full: small-model }
active_session: { default_facet: plan }
`;

async function until(check: () => boolean, what: string, frame: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited for ${what}; the screen shows:\n${frame()}`);
    await Bun.sleep(10);
  }
}

describe("status line before the first turn", () => {
  test("a new session shows its model and facet as soon as it is ready; /facet changes them", async () => {
    const p = makeProject(CONFIG, { ".agent/facets/review.md": "---\ndescription: Reviews\nmodel: big-model\n---\nYou review.\n" });
    // The project layer is this test's own setup (its provider and models): trusted for the run.
    const { engineFactory } = configuredEngine(p.env, false, { untrusted: "keep" });
    const running = await startDaemon({ sessionDir: tempSessionDir(), project: p.root, credential: TOKEN, engineFactory, limits: { heartbeatMs: 0 } });
    const store = new ViewStore();
    const stop = new AbortController();
    const conn = new Connection(new DaemonClient({ url: running.url, token: TOKEN, retryDelayMs: 10 }), store, { baseDelayMs: 10 });
    const ui = render(<App store={store} actions={new SessionActions(conn, store, stop.signal)} onExit={() => {}} />);
    const following = conn.run(stop.signal);
    cleanups.push(async () => {
      stop.abort();
      ui.unmount();
      await following;
      await running.stop();
    });
    const frame = () => ui.lastFrame() ?? "";
    await until(() => frame().includes("ready"), "ready", frame);
    expect(frame()).toContain("small-model · facet plan");
    expect(frame()).not.toContain("model —");

    ui.stdin.write("/facet review");
    await until(() => frame().includes("/facet review"), "the typed command", frame);
    ui.stdin.write("\r");
    await until(() => frame().includes("big-model · facet review"), "the status line after /facet", frame);
  });
});

describe("snapshot and replayed records", () => {
  const rec = (seq: number, body: Record<string, unknown>) => ({ version: 1, seq: String(seq), at: 0, ...body }) as unknown as SyncRecord;
  const snap = (seq: number, active: SyncSnapshotBody["active"]) => testSnapshot(seq, { active });

  test("records up to the snapshot's seq do not undo its facet and model; newer ones do", () => {
    const state = emptyViewState();
    applySnapshot(state, snap(2, { facet: "review", model: "big(high)" }));
    expect(state).toMatchObject({ facet: "review", model: "big(high)" });
    // A rebuild replays from the origin: the old turn's facet is history, not the present.
    applyRecords(state, [rec(1, { type: "turn_started", turn_id: "t1", model: "small", facet: "execute" }), rec(2, { type: "turn_completed", turn_id: "t1", stop_reason: "end_turn", usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 } })]);
    expect(state).toMatchObject({ facet: "review", model: "big(high)" });
    applyRecords(state, [rec(3, { type: "model_changed", model: "small", previous: "big(high)" })]);
    expect(state).toMatchObject({ facet: "review", model: "small" });
  });

  test("a snapshot with no `active` (a stopped session, an older daemon) leaves the status line to the records", () => {
    const state = emptyViewState();
    applySnapshot(state, { ...snap(0, null) });
    expect(state).toMatchObject({ facet: null, model: null });
    applyRecords(state, [rec(1, { type: "turn_started", turn_id: "t1", model: "small", facet: "execute" })]);
    expect(state).toMatchObject({ facet: "execute", model: "small" });
  });
});
