// The conversation view on a connection that goes silent without closing (a stalled proxy, a suspended
// peer): after the silence deadline the banner says the screen is not live, and once the daemon is heard
// again the view follows on from where it was. A real daemon (the daemon tests' harness and fake engine)
// behind a TCP proxy on 127.0.0.1 that can stop forwarding; the deadline runs on a manual timer.
import { afterEach, describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { DaemonClient } from "../../src/client/daemon-client.ts";
import { SILENCE_MS } from "../../src/client/daemon-sse.ts";
import { App } from "../../tui/app.tsx";
import { Connection } from "../../tui/connection.ts";
import { SessionActions } from "../../tui/session-actions.ts";
import { ViewStore } from "../../tui/view-store.ts";
import { ManualTimers, until } from "../client/manual-timers.ts";
import { startHarness, TOKEN } from "../daemon/harness.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Forwards to `port`; while frozen, what the daemon sends is held back (the sockets stay open). */
async function freezingProxy(port: number) {
  let frozen = false;
  const held: { client: Socket; chunk: string | Uint8Array }[] = [];
  const proxy = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => (frozen ? held.push({ client, chunk }) : client.write(chunk)));
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.on("error", () => {});
    upstream.on("error", () => {});
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    freeze: () => void (frozen = true),
    thaw: () => {
      frozen = false;
      for (const { client, chunk } of held.splice(0)) if (!client.destroyed) client.write(chunk);
    },
    close: () => void proxy.close(),
  };
}

describe("conversation view on a silent connection", () => {
  test("shows the disconnected banner after the silence deadline and follows on once the daemon is heard again", async () => {
    const h = await startHarness();
    const proxy = await freezingProxy(Number(new URL(h.url).port));
    const timers = new ManualTimers();
    const store = new ViewStore();
    const stop = new AbortController();
    const conn = new Connection(new DaemonClient({ url: proxy.url, token: TOKEN, retryDelayMs: 10, liveness: { timers } }), store, { baseDelayMs: 10 });
    const ui = render(<App store={store} actions={new SessionActions(conn, store, stop.signal)} onExit={() => {}} />);
    const following = conn.run(stop.signal);
    cleanups.push(async () => {
      stop.abort();
      ui.unmount();
      proxy.thaw();
      await following;
      proxy.close();
      await h.stop();
    });
    const frame = () => ui.lastFrame() ?? "";
    const say = async (text: string) => {
      ui.stdin.write(text);
      await until(() => frame().includes(text), `the editor to show ${text}`);
      ui.stdin.write("\r");
      await until(() => frame().includes(`echo: ${text}`), `the answer to ${text}`);
    };
    await until(() => frame().includes("ready"), "the view to be ready");
    await say("before");

    // The turn's last records may still be on their way after its answer shows: each one re-arms the silence
    // timer, so the freeze comes once the view is idle again and the bytes already read are applied.
    await until(() => frame().includes("ready"), "the turn to end");
    proxy.freeze();
    await Bun.sleep(100);
    await until(() => timers.waiting === 1, "the stream to be waiting for the daemon");
    timers.advance(SILENCE_MS - 1);
    await Bun.sleep(20);
    expect(frame()).not.toContain("DISCONNECTED");
    timers.advance(1);
    await until(() => frame().includes("DISCONNECTED — reconnecting"), "the banner");
    expect(frame()).toContain("The screen is not live.");
    expect(frame()).toContain("sent nothing for 35 s");

    proxy.thaw();
    await until(() => store.health.state === "connected" && !frame().includes("DISCONNECTED"), "the banner to go");
    // Followed on from the applied cursor: the earlier answer is kept once, and new turns stream in.
    await say("after");
    expect(frame().split("echo: before").length - 1).toBe(1);
  }, 20_000);
});
