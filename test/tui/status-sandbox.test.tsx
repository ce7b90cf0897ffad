// The status line names the session's permission mode (issue 35 item 2): a daemon started with
// --full-auto shows `sandboxed autonomy (workspace_write, no network)` from the first frame; the default
// (no sandbox, ask every time) adds nothing to the line. Shift+Tab cycles ask every time → accept edits →
// sandboxed autonomy → plan; a command asking to leave the sandbox opens the permission question.
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
import { startProviderFake, type ProviderFake } from "../fakes/provider-fake.ts";
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

async function statusWith(sandbox: SandboxOverrides, config = CONFIG) {
  const p = makeProject(config);
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
  const frame = () => ui.lastFrame() ?? "";
  const until = async (text: string) => {
    const deadline = Date.now() + 10_000;
    while (!frame().includes(text)) {
      if (Date.now() > deadline) throw new Error(`waited for ${JSON.stringify(text)}; the screen shows:\n${frame()}`);
      await Bun.sleep(10);
    }
  };
  await until("small-model");
  return { ui, frame, until };
}

const SHIFT_TAB = "\x1b[Z";

describe("the permission mode on the status line", () => {
  test.skipIf(!hasBwrap)("--full-auto: sandboxed autonomy and the sandbox", async () => {
    expect((await statusWith({ mode: "workspace_write", autonomy: "sandboxed" })).frame()).toContain("sandboxed autonomy (workspace_write, no network) · small-model");
  });

  test("accept_edits without a sandbox says so; the default adds nothing", async () => {
    expect((await statusWith({ mode: "off", autonomy: "accept_edits" })).frame()).toContain("accept edits · no sandbox · small-model");
    const plain = (await statusWith({})).frame();
    expect(plain).not.toContain("autonomy");
    expect(plain).not.toContain("sandbox");
  });

  test.skipIf(!hasBwrap)("Shift+Tab cycles ask every time → accept edits → sandboxed autonomy → plan → ask every time", async () => {
    const view = await statusWith({ mode: "workspace_write" });
    await view.until("ask every time (workspace_write, no network) · small-model · facet execute");
    view.ui.stdin.write(SHIFT_TAB);
    await view.until("accept edits (workspace_write, no network) · small-model · facet execute");
    view.ui.stdin.write(SHIFT_TAB);
    await view.until("sandboxed autonomy (workspace_write, no network) · small-model · facet execute");
    view.ui.stdin.write(SHIFT_TAB);
    await view.until("sandboxed autonomy (workspace_write, no network) · small-model · facet plan");
    view.ui.stdin.write(SHIFT_TAB);
    await view.until("ask every time (workspace_write, no network) · small-model · facet execute");
  });

  test("without a sandbox Shift+Tab skips sandboxed autonomy", async () => {
    const view = await statusWith({ mode: "off", autonomy: "accept_edits" });
    view.ui.stdin.write(SHIFT_TAB);
    await view.until("accept edits · no sandbox · small-model · facet plan");
  });

  test.skipIf(!hasBwrap)("a command asking to leave the sandbox opens the permission question, naming it", async () => {
    const fake: ProviderFake = startProviderFake("b_chat_completions", [
      { kind: "turn", turn: { text: "Escaping.", tool_calls: [{ id: "call_1", name: "shell", arguments: JSON.stringify({ command: "npm install", outside_sandbox: true }) }] } },
      { kind: "turn", turn: { text: "done" } },
    ]);
    cleanups.push(() => fake.stop());
    const config = `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\nmodels:\n  small-model: { provider: local, class: full, context_window: 32000 }\ndefaults: { full: small-model, mini: small-model }\n`;
    const view = await statusWith({ mode: "workspace_write", autonomy: "sandboxed" }, config);
    view.ui.stdin.write("install the deps");
    await view.until("install the deps");
    view.ui.stdin.write("\r");
    await view.until("OUTSIDE the sandbox");
    expect(view.frame()).toContain("workspace_write, no network");
  });

  test("the words for each combination", () => {
    expect(permissionMode("read_only, no network", "ask")).toBe("ask every time (read_only, no network)");
    expect(permissionMode("off", "ask")).toBeNull();
    expect(permissionMode(null, null)).toBeNull();
  });
});
