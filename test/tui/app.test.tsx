// The conversation view against a real daemon (HTTP on 127.0.0.1, the daemon tests' fake engine):
// keys, the queue, interrupt, the permission dialog, slash commands, the kill confirmation, and a
// prompt whose connection drops being sent again with the same operation (never run twice).
import { afterEach, describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { DaemonClient } from "../../src/client/daemon-client.ts";
import { App } from "../../tui/app.tsx";
import { Connection } from "../../tui/connection.ts";
import { SessionActions } from "../../tui/session-actions.ts";
import { ViewStore } from "../../tui/view-store.ts";
import { startHarness, TOKEN, type Harness } from "../daemon/harness.ts";
import type { FakeEngineOptions } from "../daemon/fake-engine.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(check: () => boolean, what: string, frame: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited for ${what}; the screen shows:\n${frame()}`);
    await Bun.sleep(10);
  }
}

async function mount(engine: FakeEngineOptions = {}, url?: (h: Harness) => string, ctrlCInterrupts?: boolean) {
  const h = await startHarness({ engine });
  const store = new ViewStore();
  const stop = new AbortController();
  const conn = new Connection(new DaemonClient({ url: url ? url(h) : h.url, token: TOKEN, retryDelayMs: 10 }), store, { baseDelayMs: 10 });
  const actions = new SessionActions(conn, store, stop.signal);
  const exits: number[] = [];
  const ui = render(<App store={store} actions={actions} onExit={(c) => exits.push(c)} ctrlCInterrupts={ctrlCInterrupts} />);
  const following = conn.run(stop.signal);
  cleanups.push(async () => {
    stop.abort();
    ui.unmount();
    await following;
    await h.stop();
  });
  const screen = () => ui.frames.join("\n");
  const wait = (check: string | (() => boolean), what = String(check)) =>
    until(typeof check === "string" ? () => screen().includes(check) : check, what, () => ui.lastFrame() ?? "");
  const type = async (text: string) => {
    ui.stdin.write(text);
    await wait(() => (ui.lastFrame() ?? "").includes(text.split("\n").at(-1)!), `the editor to show ${text}`);
  };
  await wait("ready");
  return { h, store, ui, screen, wait, type, exits, enter: () => ui.stdin.write("\r") };
}

describe("conversation view (ink-testing-library, real daemon)", () => {
  test("a prompt streams its answer; while busy a typed prompt is queued, Up takes it back, Esc interrupts", async () => {
    const v = await mount({ hold: true, reply: (p) => `answer to ${p}` });
    await v.type("first");
    v.enter();
    await v.wait("Esc to interrupt");
    await v.type("second");
    v.enter();
    await v.wait("⧗ queued: second");
    expect(v.h.engine().ran).toEqual(["first"]);
    v.ui.stdin.write("\x1b[A");
    await v.wait(() => !v.ui.lastFrame()!.includes("⧗ queued") && v.ui.lastFrame()!.includes("› second"), "the queued input back in the editor");
    v.ui.stdin.write("\x1b");
    await v.wait("■ interrupted");
    expect(v.h.engine().ran).toEqual(["first"]);
    v.enter();
    await v.wait(() => v.h.engine().ran.length === 2, "the second prompt to run");
    v.h.engine().release();
    await v.wait("answer to second");
  }, 20_000);

  test("text and Enter arriving in one read send the text (a fast typist over a slow link, a script); a paste never sends", async () => {
    const v = await mount({ reply: (p) => `answer to ${p}` });
    v.ui.stdin.write("hello there\r");
    await v.wait("answer to hello there");
    v.ui.stdin.write("one\\\rtwo\rthree");
    await v.wait(() => v.h.engine().ran.length === 2, "the continued prompt to run");
    expect(v.h.engine().ran).toEqual(["hello there", "one\ntwo"]);
    await v.wait(() => (v.ui.lastFrame() ?? "").includes("› three"), "the rest to stay in the editor");
    v.ui.stdin.write("\x1b[200~ four\rfive\x1b[201~");
    await v.wait(() => (v.ui.lastFrame() ?? "").includes("five"), "the paste in the editor");
    expect(v.h.engine().ran).toHaveLength(2);
  }, 20_000);

  test("a permission ask: deny with a message for the model", async () => {
    const v = await mount();
    await v.type("please ASK");
    v.enter();
    await v.wait("Allow shell ls?");
    expect(v.ui.lastFrame()).toContain("1. Allow once");
    expect(v.ui.lastFrame()).toContain("3. Allow always in this project");
    v.ui.stdin.write("4");
    await v.wait("message:");
    await v.type("not now");
    v.enter();
    await v.wait(() => !v.ui.lastFrame()!.includes("Allow shell"), "the dialog to close");
    const res = await v.h.get("/events?after=" + encodeURIComponent((await (await v.h.get("/sync")).json()).origin_cursor));
    const text = await readUntil(res, "interrogative_closed");
    expect(text).toContain('"decision":"deny"');
    expect(text).toContain('"message":"not now"');
  }, 20_000);

  test("slash commands: /help lists local and session commands, /echo runs on the daemon, errors are typed, /exit detaches", async () => {
    const v = await mount();
    await v.type("/help");
    v.enter();
    await v.wait("/echo WORDS...");
    expect(v.screen()).toContain("/kill-session");
    await v.type("/echo hi there");
    v.enter();
    await v.wait(() => v.screen().includes("hi there\n") || v.screen().endsWith("hi there"), "the command's message");
    expect(v.h.engine().commandRuns).toBe(1);
    await v.type("/bogus");
    v.enter();
    await v.wait("unknown_command: there is no command /bogus");
    await v.type("/exit");
    v.enter();
    await v.wait(() => v.exits.length === 1, "detach");
    expect(v.exits).toEqual([0]);
  }, 20_000);

  test("/kill-session asks first and Enter means Cancel; y stops the session", async () => {
    const v = await mount();
    await v.type("/kill-session");
    v.enter();
    await v.wait("Stop this session?");
    v.enter();
    await v.wait(() => !v.ui.lastFrame()!.includes("Stop this session?"), "the dialog to close");
    expect(v.exits).toEqual([]);
    expect((await (await v.h.get("/sync")).json()).session_state).toBe("running");
    await v.type("/kill-session");
    v.enter();
    await v.wait(() => v.ui.lastFrame()!.includes("Stop this session?"), "the dialog again");
    v.ui.stdin.write("y");
    await v.wait(() => v.exits.length === 1, "detach after stopping");
    expect((await (await v.h.get("/sync")).json()).session_state).not.toBe("running");
  }, 20_000);

  test("Ctrl+D on an empty prompt detaches; on text it deletes instead", async () => {
    const v = await mount();
    await v.type("ab");
    const frames = v.ui.frames.length;
    v.ui.stdin.write("\x1b[D");
    // Separate reads: a key and a control byte in one chunk are taken as pasted text.
    await v.wait(() => v.ui.frames.length > frames, "the cursor to move");
    v.ui.stdin.write("\x04");
    await v.wait(() => plain(v.ui.lastFrame()!).includes("› a") && !plain(v.ui.lastFrame()!).includes("› ab"), "the forward delete");
    expect(v.exits).toEqual([]);
    v.ui.stdin.write("\x7f");
    await v.wait(() => plain(v.ui.lastFrame()!).includes("Type a message"), "an empty editor");
    v.ui.stdin.write("\x04");
    await v.wait(() => v.exits.length === 1, "detach");
  }, 20_000);

  test("Ctrl+C while a turn runs: a local view interrupts it, then a second Ctrl+C detaches; a remote view (agent connect) detaches at once", async () => {
    const local = await mount({ hold: true, reply: (p) => `answer to ${p}` }, undefined, true);
    await local.type("first");
    local.enter();
    await local.wait("Esc to interrupt");
    local.ui.stdin.write("\x03");
    await local.wait("■ interrupted");
    expect(local.exits).toEqual([]);
    local.ui.stdin.write("\x03");
    await local.wait(() => local.exits.length === 1, "detach");

    const remote = await mount({ hold: true, reply: (p) => `answer to ${p}` });
    await remote.type("first");
    remote.enter();
    await remote.wait("Esc to interrupt");
    remote.ui.stdin.write("\x03");
    await remote.wait(() => remote.exits.length === 1, "detach");
    expect(remote.screen()).not.toContain("■ interrupted");
  }, 20_000);
});

describe("connection health", () => {
  test("a pending question hides while disconnected and comes back after the reconnect; answering it works", async () => {
    let h!: Harness;
    const proxy = await cuttableProxy(() => h.url);
    const v = await mount({}, (harness) => ((h = harness), proxy.url));
    await v.type("go ASK");
    v.enter();
    await v.wait("Allow shell ls?");
    proxy.down();
    await v.wait("DISCONNECTED");
    expect(v.ui.lastFrame()).not.toContain("Allow shell ls?");
    expect(v.ui.lastFrame()).toContain("offline");
    proxy.up();
    await v.wait(() => !v.ui.lastFrame()!.includes("DISCONNECTED") && v.ui.lastFrame()!.includes("Allow shell ls?"), "the question after the reconnect");
    v.ui.stdin.write("1");
    await v.wait("echo: go ASK");
    expect(v.h.engine().ran).toEqual(["go ASK"]);
  }, 20_000);
});

describe("prompt editor", () => {
  test("several keys in one read all apply, in order (no keystroke lost to a stale state)", async () => {
    const v = await mount();
    await v.type("ab");
    v.ui.stdin.write("\x1b[D\x1b[DX");
    await v.wait(() => plain(v.ui.lastFrame()!).includes("› Xab"), "both moves and the insert");
  }, 20_000);
});

describe("details", () => {
  test("Ctrl+O prints the last turn again with its details", async () => {
    const v = await mount();
    await v.type("explain");
    v.enter();
    await v.wait("echo: explain");
    await v.wait(() => /ready/.test(v.ui.lastFrame()!), "the turn to end");
    v.ui.stdin.write("\x0f");
    await v.wait("details of the last turn:");
    const after = v.screen().slice(v.screen().lastIndexOf("details of the last turn:"));
    expect(after).toContain("› explain");
    expect(after).toContain("echo: explain");
  }, 20_000);
});

describe("sending through a dropped connection", () => {
  test("the prompt is sent again with the same operation and runs once", async () => {
    // A TCP proxy that forwards the first POST /prompt to the daemon but drops the client's connection
    // when the answer starts: the client cannot know whether the prompt arrived.
    let dropped = 0;
    let h!: Harness;
    const proxy = createServer((client) => {
      const upstream = connect(Number(new URL(h.url).port), "127.0.0.1");
      let drop = false;
      client.on("data", (chunk) => {
        if (chunk.toString("latin1").startsWith("POST /prompt") && dropped++ === 0) drop = true;
        upstream.write(chunk);
      });
      upstream.on("data", (chunk) => (drop ? client.destroy() : client.write(chunk)));
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      client.on("error", () => {});
      upstream.on("error", () => {});
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const port = (proxy.address() as AddressInfo).port;
    cleanups.push(() => void proxy.close());
    const v = await mount({}, (harness) => ((h = harness), `http://127.0.0.1:${port}`));
    await v.type("only once");
    v.enter();
    await v.wait("echo: only once");
    // The answer to the retry is the stored result of the first attempt: nothing runs twice.
    await v.wait(() => dropped >= 2 && !v.ui.lastFrame()!.includes("sending…"), "the retried send to settle");
    expect(v.ui.lastFrame()).not.toContain("not sent");
    expect(v.h.engine().ran).toEqual(["only once"]);
  }, 20_000);
});

function plain(frame: string): string {
  return frame.replace(/\x1b\[[0-9;]*m/g, "");
}

/** A TCP proxy to the daemon that a test can take down (open connections cut, new ones refused) and up again. */
async function cuttableProxy(target: () => string) {
  const sockets = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(Number(new URL(target()).port), "127.0.0.1");
    sockets.add(client);
    client.pipe(upstream).pipe(client);
    const close = () => (sockets.delete(client), client.destroy(), upstream.destroy());
    client.on("close", close).on("error", close);
    upstream.on("close", close).on("error", close);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(() => void server.close());
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    down: () => {
      down = true;
      for (const s of sockets) s.destroy();
    },
    up: () => void (down = false),
  };
}

async function readUntil(res: Response, marker: string): Promise<string> {
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  return text;
}

describe("a session stopped elsewhere", () => {
  test("the view says so instead of reconnecting, and a prompt is refused with its text kept", async () => {
    const v = await mount();
    // As `agent sessions stop` does: stop the session, then the daemon exits.
    expect((await v.h.post("/session/stop", {})).status).toBe(200);
    await v.wait("session stopped");
    await v.h.stop();
    await v.wait("session stopped · Ctrl+D leaves");
    expect(v.ui.lastFrame()).not.toContain("DISCONNECTED");
    await v.type("hello?");
    v.enter();
    await v.wait("not sent (the session is stopped)");
    expect(plain(v.ui.lastFrame()!)).toContain("› hello?");
  }, 20_000);
});
