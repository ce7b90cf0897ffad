// A request whose handling takes longer than the gateway's idle timeout still gets its answer: Bun's idle
// timer runs while a handler works, so a stop waiting for its daemon or a daemon answering slowly through
// the proxy was cut unanswered (ECONNRESET). The idle timeout is 1 s here; the daemon answers after 5 s.
// Once answered, an idle keep-alive connection is still closed by the idle timeout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { api, FAKE_DAEMON_COMMAND, FAST, machineToken, registerProject, stopGateway } from "./helpers.ts";

let gw: TestGateway & { token: string };
let session: string;
beforeAll(async () => {
  const started = await startTestGateway(`${FAST.replace("proxy_connect_timeout_secs: 2", "proxy_connect_timeout_secs: 30")}`, { idleTimeoutSecs: 1 });
  started.ctx.sessions.daemonCommand = FAKE_DAEMON_COMMAND;
  gw = Object.assign(started, { token: await machineToken(started) });
  const a = api(gw);
  session = (await a.create((await registerProject(gw)).projectId)).body.id;
  expect((await a.settled(session)).state).toBe("running");
});
afterAll(() => stopGateway(gw));

test("a proxied request the daemon answers after 5 s gets its answer through a gateway with a 1 s idle timeout", async () => {
  const res = await fetch(`${gw.url}/api/v1/sessions/${session}/proxy/slow?ms=5000`, { headers: { Authorization: `Bearer ${gw.token}` } });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ slow: true });
}, 30_000);

test("after a slow answer, the idle keep-alive connection is closed by the idle timeout", async () => {
  const { port } = new URL(gw.url);
  const received = await new Promise<string>((resolve, reject) => {
    let data = "";
    const socket = connect({ host: "127.0.0.1", port: Number(port) }, () => {
      socket.write(`GET /api/v1/sessions/${session}/proxy/slow?ms=3000 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${gw.token}\r\n\r\n`);
    });
    socket.on("data", (d) => (data += d.toString()));
    // The connection stays open after the answer (keep-alive) until the gateway closes it.
    socket.on("close", () => resolve(data));
    socket.on("error", reject);
  });
  expect(received).toStartWith("HTTP/1.1 200");
  expect(received).toContain('{"slow":true}');
}, 30_000);
