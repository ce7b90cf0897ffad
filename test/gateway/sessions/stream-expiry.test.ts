// Streams opened with an OAuth access token end when that token expires, as they end when it is revoked:
// a proxied daemon SSE stream (its upstream exchange ends too) and the fleet event stream. A PAT (no
// expiry) keeps its stream open across the same clock move.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { api, FAKE_DAEMON_COMMAND, registerProject, sessionGateway, stopGateway } from "./helpers.ts";
import { basic, call, confidentialClient } from "../oauth-helpers.ts";

let gw: Awaited<ReturnType<typeof sessionGateway>>;
let a: ReturnType<typeof api>;
let session: string;

beforeAll(async () => {
  gw = await sessionGateway();
  gw.ctx.sessions.daemonCommand = FAKE_DAEMON_COMMAND;
  a = api(gw);
  session = (await a.create((await registerProject(gw)).projectId)).body.id;
  expect((await a.settled(session)).state).toBe("running");
});
afterAll(async () => {
  await a.call("DELETE", `/api/v1/sessions/${session}`);
  await stopGateway(gw);
});

async function accessToken(): Promise<{ token: string; expiresIn: number }> {
  const [id, secret] = await confidentialClient(gw, ["machine"]);
  const r = await call(gw, "token", { grant_type: "client_credentials" }, { Authorization: basic(id, secret) });
  expect(r.status).toBe(200);
  return { token: r.body.access_token, expiresIn: r.body.expires_in };
}

/** Opens `path` as a stream; `ended` resolves with the text read once the server ends the response. */
async function open(path: string, token: string): Promise<{ ended: Promise<string>; done: () => boolean; cancel: () => Promise<void> }> {
  const res = await fetch(`${gw.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/event-stream");
  const reader = res.body!.getReader();
  let finished = false;
  let text = "";
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    finished = true;
    return text;
  })().catch(() => {
    finished = true;
    return text;
  });
  return { ended, done: () => finished, cancel: () => reader.cancel() };
}

const stats = async () => (await a.call("GET", `/api/v1/sessions/${session}/proxy/stats`)).body as { sse_opened: number; sse_cancelled: number };

describe("a stream ends when its access token expires", () => {
  test("proxied daemon SSE: open before expiry, ended (and its upstream stream cancelled) once the token's lifetime is over", async () => {
    const { token, expiresIn } = await accessToken();
    expect(expiresIn).toBe(900);
    const before = await stats();
    const stream = await open(`/api/v1/sessions/${session}/proxy/sse`, token);
    // Ticks keep flowing while the token is valid, even after several sweeps.
    await Bun.sleep(1200);
    expect(stream.done()).toBe(false);
    gw.clock.advance((expiresIn - 5) * 1000);
    await Bun.sleep(1200);
    expect(stream.done()).toBe(false);
    gw.clock.advance(5_000);
    const text = await stream.ended;
    expect(text).toContain("data: tick");
    // The token itself is refused now, and the daemon saw its stream go away.
    expect((await fetch(`${gw.url}/api/v1/sessions/${session}/proxy/stats`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    for (let i = 0; i < 50 && (await stats()).sse_cancelled <= before.sse_cancelled; i++) await Bun.sleep(50);
    expect((await stats()).sse_cancelled).toBe(before.sse_cancelled + 1);
  });

  test("fleet events (GET /api/v1/events): ended at the token's expiry", async () => {
    const { token, expiresIn } = await accessToken();
    const stream = await open("/api/v1/events", token);
    await Bun.sleep(700);
    expect(stream.done()).toBe(false);
    gw.clock.advance(expiresIn * 1000);
    expect(await stream.ended).toContain("heartbeat");
  });

  test("a personal access token has no expiry: its stream stays open across the same clock move", async () => {
    const stream = await open(`/api/v1/sessions/${session}/proxy/sse`, gw.token);
    gw.clock.advance(3_600_000);
    await Bun.sleep(1200);
    expect(stream.done()).toBe(false);
    await stream.cancel();
  });
});
