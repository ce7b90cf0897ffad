// The status line names the session's permission mode (issue 35 item 2): a daemon started with
// --full-auto shows `sandboxed autonomy (workspace_write, no network)` from the first frame; the default
// (no sandbox, ask every time) adds nothing to the line.
import { afterEach, describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { DaemonClient } from "../../src/client/daemon-client.ts";
import { startDaemon } from "../../src/daemon/serve.ts";
import { App } from "../../tui/app.tsx";
import { permissionMode } from "../../tui/components/status-line.tsx";
import { Connection } from "../../tui/connection.ts";
import { SessionActions } from "../../tui/session-actions.ts";
import { ViewStore } from "../../tui/view-store.ts";
import type { SandboxOverrides } from "../../src/sandbox/settings.ts";
import { makeProject } from "../agent/harness.ts";
import { TOKEN, tempSessionDir } from "../daemon/harness.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CONFIG = `providers:
  fake: { kind: { type: custom_a_compatible }, url: "http://127.0.0.1:9", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  small-model: { provider: fake, class: full, context_window: 100000 }
defaults: { full: small-model }
`;
const hasBwrap = process.platform === "linux" && Bun.which("bwrap") !== null;

async function statusWith(sandbox: SandboxOverrides): Promise<string> {
  const p = makeProject(CONFIG);
  const { engineFactory } = configuredEngine(p.env, false, { untrusted: "keep", sandbox });
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
  const deadline = Date.now() + 10_000;
  while (!(ui.lastFrame() ?? "").includes("small-model")) {
    if (Date.now() > deadline) throw new Error(`never ready:\n${ui.lastFrame()}`);
    await Bun.sleep(10);
  }
  return ui.lastFrame() ?? "";
}

describe("the permission mode on the status line", () => {
  test.skipIf(!hasBwrap)("--full-auto: sandboxed autonomy and the sandbox", async () => {
    expect(await statusWith({ mode: "workspace_write", autonomy: "sandboxed" })).toContain("sandboxed autonomy (workspace_write, no network) · small-model");
  });

  test("accept_edits without a sandbox says so; the default adds nothing", async () => {
    expect(await statusWith({ mode: "off", autonomy: "accept_edits" })).toContain("accept edits · no sandbox · small-model");
    const plain = await statusWith({});
    expect(plain).not.toContain("autonomy");
    expect(plain).not.toContain("sandbox");
  });

  test("the words for each combination", () => {
    expect(permissionMode("read_only, no network", "ask")).toBe("ask every time (read_only, no network)");
    expect(permissionMode("off", "ask")).toBeNull();
    expect(permissionMode(null, null)).toBeNull();
  });
});
