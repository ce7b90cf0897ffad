// The session proxy's transparency (method, path, query, body bytes, status, headers, SSE, redirects,
// many clients, client disconnect) against a daemon stand-in that echoes what it received, and the abuse
// cases: traversal, a project-scoped token, a daemon credential on another session, a stale generation.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { api, FAKE_DAEMON_COMMAND, registerProject, sessionGateway, stopGateway } from "./helpers.ts";
import { basic, call, confidentialClient } from "../oauth-helpers.ts";

const SERVICES = "services:\n  review:\n    enabled: true\n    capabilities:\n      comment: { enabled: true, modes: [inline, summary] }\n      approve: { enabled: false }\n  deploy:\n    enabled: false\n";
let gw: Awaited<ReturnType<typeof sessionGateway>>;
let a: ReturnType<typeof api>;
let one: string;
let two: string;

beforeAll(async () => {
  gw = await sessionGateway(SERVICES);
  gw.ctx.sessions.daemonCommand = FAKE_DAEMON_COMMAND;
  a = api(gw);
  one = (await a.create((await registerProject(gw)).projectId)).body.id;
  two = (await a.create((await registerProject(gw)).projectId)).body.id;
  expect((await a.settled(one)).state).toBe("running");
  expect((await a.settled(two)).state).toBe("running");
});
afterAll(async () => {
  for (const id of [one, two]) await a.call("DELETE", `/api/v1/sessions/${id}`);
  await stopGateway(gw);
});

/** Sends a request target exactly as written (fetch would normalize dot segments first). */
function raw(path: string, token = gw.token): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    });
    let data = "";
    socket.on("data", (d) => (data += d.toString()));
    socket.on("end", () => resolve({ status: Number(data.split(" ")[1]), text: data.slice(data.indexOf("\r\n\r\n") + 4) }));
    socket.on("error", reject);
  });
}

describe("proxy transparency", () => {
  test("method, path, query and body bytes reach the daemon; the caller's token and cookies are swapped for the daemon's", async () => {
    const body = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
    const res = await fetch(`${gw.url}/api/v1/sessions/${one}/proxy/some/path?x=1&y=%20z`, {
      method: "PUT",
      body,
      headers: { Authorization: `Bearer ${gw.token}`, Cookie: "__Host-session=abc", "X-Custom": "kept", Connection: "keep-alive, X-Drop", "X-Drop": "hop", "Proxy-Authorization": "Basic eA==" },
    });
    expect(res.status).toBe(200);
    const echo = (await res.json()) as { method: string; path: string; search: string; headers: Record<string, string>; body_sha256: string; body_length: number };
    expect(echo).toMatchObject({ method: "PUT", path: "/some/path", search: "?x=1&y=%20z", body_length: body.length, body_sha256: new Bun.CryptoHasher("sha256").update(body).digest("hex") });
    expect(echo.headers["x-custom"]).toBe("kept");
    expect(echo.headers.authorization).toStartWith("Bearer dmn_");
    expect(JSON.stringify(echo.headers)).not.toContain(gw.token);
    for (const h of ["cookie", "x-drop", "proxy-authorization"]) expect(echo.headers[h]).toBeUndefined();
  });

  test("status, headers and body pass through; redirects are returned, never followed", async () => {
    const auth = { Authorization: `Bearer ${gw.token}` };
    const tea = await fetch(`${gw.url}/api/v1/sessions/${one}/proxy/teapot`, { headers: auth });
    expect([tea.status, tea.headers.get("x-daemon"), await tea.text()]).toEqual([418, "yes", "short and stout"]);
    // The gateway's security headers ride on proxied answers too; a Cache-Control of the daemon's own is kept.
    expect([tea.headers.get("x-frame-options"), tea.headers.get("x-content-type-options"), tea.headers.get("cache-control")]).toEqual(["DENY", "nosniff", "no-store"]);
    const redirect = await fetch(`${gw.url}/api/v1/sessions/${one}/proxy/redirect`, { headers: auth, redirect: "manual" });
    expect([redirect.status, redirect.headers.get("location")]).toEqual([302, "http://127.0.0.1:1/elsewhere"]);
  });

  test("SSE streams through; many clients at once; a client going away aborts its upstream stream", async () => {
    const auth = { Authorization: `Bearer ${gw.token}` };
    const before = await (await fetch(`${gw.url}/api/v1/sessions/${one}/proxy/stats`, { headers: auth })).json();
    const streams = await Promise.all(Array.from({ length: 20 }, () => fetch(`${gw.url}/api/v1/sessions/${one}/proxy/sse`, { headers: auth })));
    for (const res of streams) {
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      expect([res.headers.get("cache-control"), res.headers.get("referrer-policy")]).toEqual(["no-cache", "no-referrer"]);
      const reader = res.body!.getReader();
      let text = "";
      while (!text.includes("data: tick 2")) text += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
    }
    let stats: { sse_opened: number; sse_cancelled: number } = before;
    for (let i = 0; i < 200 && stats.sse_cancelled < before.sse_cancelled + 20; i++) {
      await Bun.sleep(25);
      stats = await (await fetch(`${gw.url}/api/v1/sessions/${one}/proxy/stats`, { headers: auth })).json();
    }
    expect(stats.sse_opened - before.sse_opened).toBe(20);
    expect(stats.sse_cancelled - before.sse_cancelled).toBe(20);
    const parallel = await Promise.all(Array.from({ length: 50 }, (_, i) => fetch(`${gw.url}/api/v1/sessions/${i % 2 ? one : two}/proxy/n/${i}`, { headers: auth }).then((r) => r.json())));
    expect(parallel.map((e: any) => e.path)).toEqual(Array.from({ length: 50 }, (_, i) => `/n/${i}`));
  });

  test("a client going away before the daemon answered ends the upstream request too", async () => {
    const auth = { Authorization: `Bearer ${gw.token}` };
    const stats = async () => (await (await fetch(`${gw.url}/api/v1/sessions/${one}/proxy/stats`, { headers: auth })).json()) as { slow_opened: number; slow_abandoned: number };
    const before = await stats();
    // The deadline for the daemon's answer is far away here: only the client leaving can end the request.
    const limits = gw.ctx.config.daemon_sessions as { proxy_connect_timeout_secs: number };
    const saved = limits.proxy_connect_timeout_secs;
    limits.proxy_connect_timeout_secs = 60;
    const leave = new AbortController();
    const pending = fetch(`${gw.url}/api/v1/sessions/${one}/proxy/slow`, { headers: auth, signal: leave.signal }).catch((e: Error) => e.name);
    let now = before;
    for (let i = 0; i < 200 && now.slow_opened === before.slow_opened; i++) {
      await Bun.sleep(10);
      now = await stats();
    }
    leave.abort();
    expect(await pending).toBe("AbortError");
    // The daemon sees its request abandoned (the proxy checks its clients every 100 ms), long before its 10 s answer.
    for (let i = 0; i < 200 && now.slow_abandoned === before.slow_abandoned; i++) {
      await Bun.sleep(10);
      now = await stats();
    }
    limits.proxy_connect_timeout_secs = saved;
    expect(now.slow_abandoned).toBe(before.slow_abandoned + 1);
  });
});

describe("proxied streams and revocation", () => {
  test("revoking the token that opened a proxied SSE stream ends the stream and its upstream", async () => {
    const p = await gw.ctx.principals.create(`viewer-${Date.now()}`);
    const { info, token } = await gw.ctx.pats.create(p.id, "stream");
    const auth = { Authorization: `Bearer ${gw.token}` };
    const before = (await (await fetch(`${gw.url}/api/v1/sessions/${one}/proxy/stats`, { headers: auth })).json()) as { sse_cancelled: number };
    const res = await fetch(`${gw.url}/api/v1/sessions/${one}/proxy/sse`, { headers: { Authorization: `Bearer ${token}` } });
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("data: tick 1")) text += new TextDecoder().decode((await reader.read()).value);
    await gw.ctx.pats.revoke(info.id);
    // The stream ends (done or an error), it does not keep ticking.
    const ended = await (async () => {
      try {
        for (;;) if ((await reader.read()).done) return true;
      } catch {
        return true;
      }
    })();
    expect(ended).toBe(true);
    let stats = before;
    for (let i = 0; i < 200 && stats.sse_cancelled === before.sse_cancelled; i++) {
      await Bun.sleep(25);
      stats = (await (await fetch(`${gw.url}/api/v1/sessions/${one}/proxy/stats`, { headers: auth })).json()) as typeof before;
    }
    expect(stats.sse_cancelled).toBe(before.sse_cancelled + 1);
  });
});

describe("proxy and session route abuse", () => {
  test("traversal in the proxied path is refused; the upstream is always the session's own daemon", async () => {
    for (const path of ["%2e%2e/%2e%2e/health", "..%2f..%2fapi/v1/sessions", "a/%2E%2E/b", "x%5c..%5cy", "a/./b", "a%00b"]) {
      // Refused by the edge or the proxy (400); or the server's URL parser already resolved the encoded dots:
      // then the result is no proxy path at all (404), or a path inside this session's proxy with no dots left.
      const res = await raw(`/api/v1/sessions/${one}/proxy/${path}`);
      if (res.status === 400) expect(res.text).toMatch(/invalid_path|invalid_request/);
      else if (res.status === 200) expect(JSON.parse(res.text).path).not.toMatch(/\.\.|%2e|%2f|%5c/i);
      else expect([path, res.status]).toEqual([path, 404]);
    }
    // Literal dot segments leave the proxy prefix altogether: this is the gateway's own health route, not the daemon's.
    const dots = await raw(`/api/v1/sessions/${one}/proxy/../../../health`);
    expect(dots.text).not.toContain("ep_fake");
    // An empty segment is refused at the edge, before any routing (request-target.ts).
    expect((await raw(`/api/v1/sessions/${one}/proxy//127.0.0.2:9/steal`)).status).toBe(400);
    // A path that looks like a host is only ever a path on 127.0.0.1:<port>.
    for (const path of ["/http:/127.0.0.2:9/steal", "/@127.0.0.2:9/steal"]) {
      const hosty = await raw(`/api/v1/sessions/${one}/proxy${path}`);
      expect([path, hosty.status]).toEqual([path, 200]);
      expect(JSON.parse(hosty.text).path).toEndWith("127.0.0.2:9/steal");
    }
  });

  test("a project-scoped token gets 403 on every session route, the proxy included", async () => {
    const [id, secret] = await confidentialClient(gw, ["project"]);
    const token = (await call(gw, "token", { grant_type: "client_credentials" }, { Authorization: basic(id, secret) })).body.access_token as string;
    const routes: [string, string][] = [
      ["GET", "/api/v1/sessions"],
      ["POST", "/api/v1/sessions"],
      ["GET", `/api/v1/sessions/${one}`],
      ["POST", `/api/v1/sessions/${one}/stop`],
      ["POST", `/api/v1/sessions/${one}/resume`],
      ["DELETE", `/api/v1/sessions/${one}`],
      ["GET", `/api/v1/sessions/${one}/proxy/sync`],
      ["POST", `/api/v1/sessions/${one}/proxy/prompt`],
    ];
    for (const [method, path] of routes) {
      const res = await a.call(method, path, method === "POST" ? {} : undefined, token);
      expect([method, path, res.status, res.body.error]).toEqual([method, path, 403, "insufficient_scope"]);
    }
    expect((await a.get(one)).body.state).toBe("running");
  });

  test("a daemon credential reaches only its own session, holds no management scope, and an earlier generation is rejected", async () => {
    const older = await gw.ctx.sessions.store.issueCredential(one, []);
    const current = await gw.ctx.sessions.store.issueCredential(one, []);
    const as = (token: string, path: string) => fetch(`${gw.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });

    const identity = await as(current.token, "/api/v1/services/identity");
    expect(identity.status).toBe(200);
    expect((await identity.json()).caller).toEqual({ kind: "daemon", session_id: one, generation_id: current.generationId, principal_id: null });
    const stale = await as(older.token, "/api/v1/services/identity");
    expect([stale.status, await stale.text()]).toEqual([401, '{"error":"unauthorized"}']);
    expect((await as(older.token, `/api/v1/sessions/${one}/proxy/x`)).status).toBe(401);

    expect(((await (await as(current.token, `/api/v1/sessions/${one}/proxy/own`)).json()) as { path: string }).path).toBe("/own");
    const foreign = await as(current.token, `/api/v1/sessions/${two}/proxy/own`);
    expect([foreign.status, (await foreign.json()).message]).toEqual([403, "a daemon credential may only reach its own session"]);
    for (const path of ["/api/v1/sessions", `/api/v1/sessions/${one}`, "/api/v1/projects"]) expect((await as(current.token, path)).status).toBe(403);

    // The record lists both generations as metadata only; the first use activated the current one.
    const record = (await a.get(one)).body;
    const byId = Object.fromEntries(record.service_credentials.map((c: any) => [c.generation_id, c]));
    expect(byId[current.generationId].state).toBe("active");
    expect(JSON.stringify(record)).not.toContain(current.token.slice(4));
  });
});

describe("services routes", () => {
  test("identity, capabilities (the services block, enabled entries only) and readiness", async () => {
    const caps = await a.call("GET", "/api/v1/services/capabilities");
    expect(caps.body).toEqual({ services: [{ name: "review", capabilities: [{ name: "comment", modes: ["inline", "summary"] }] }] });
    const ready = await a.call("GET", "/api/v1/services/readiness");
    expect(ready.body).toEqual({ ready: true, services: [{ name: "review", enabled: true }, { name: "deploy", enabled: false }] });
    const identity = await a.call("GET", "/api/v1/services/identity");
    expect(identity.body.caller).toMatchObject({ kind: "principal", session_id: null, generation_id: null });
    // A daemon sees the snapshot its generation was issued with.
    const issued = await gw.ctx.sessions.store.issueCredential(two, [{ name: "snap", capabilities: [] }]);
    const snap = await a.call("GET", "/api/v1/services/capabilities", undefined, issued.token);
    expect(snap.body).toEqual({ services: [{ name: "snap", capabilities: [] }] });
  });
});
