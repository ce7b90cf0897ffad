// The host API a host agent serves to fronts (src/gateway/hosts/agent/host-api.ts), reached the way a front
// reaches it: a request over the mux (a real WebSocket on 127.0.0.1). The supervisor behind it is a real
// gateway's, its daemons the fake daemon: the session proxy answers with the daemon's response (its token,
// never the caller's), streams SSE, and the front's abort ends the daemon's stream; create, stop, resume,
// the on-demand health check and delete act on the daemon; the project path rules and hook status read this
// machine's disk; anything else is 404.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { StoppedHistory } from "../../../src/gateway/fleet/history.ts";
import { FLEET_LIMITS } from "../../../src/gateway/fleet/limits.ts";
import { hostApi } from "../../../src/gateway/hosts/agent/host-api.ts";
import type { MuxConnection } from "../../../src/gateway/hosts/mux/connection.ts";
import type { TestGateway } from "../helpers.ts";
import { api, FAKE_DAEMON_COMMAND, registerProject, sessionGateway, stopGateway, until } from "../sessions/helpers.ts";
import { muxPair, type MuxPair } from "./mux-pair.ts";
import { OpenStreams } from "../../../src/gateway/server/streams.ts";

let gw: TestGateway & { token: string };
let pair: MuxPair;
let front: MuxConnection;
let project: { projectId: string; path: string };

beforeAll(async () => {
  gw = await sessionGateway();
  gw.ctx.sessions.daemonCommand = FAKE_DAEMON_COMMAND;
  project = await registerProject(gw);
  pair = await muxPair();
  front = pair.front;
  pair.host.serve(
    hostApi({
      sessions: gw.ctx.sessions,
      // As the host agent has it (agent.ts): the fronts track their callers' streams; the gateway's own
      // tracker would re-check the forwarded request's credential at every database change and end the stream.
      proxy: { config: gw.ctx.config, tls: false, upstream: gw.ctx.upstream, streams: new OpenStreams(async () => true, { current: () => 0 }) },
      paths: gw.ctx,
      project: async (id) => (id === project.projectId ? ({ id, path: project.path } as never) : undefined),
      history: new StoppedHistory(randomBytes(32), "hep_test", { session: async (id) => (await gw.ctx.sessions.store.session(id)) ?? null }, gw.clock, FLEET_LIMITS),
    }),
  );
});

afterAll(async () => {
  await pair.stop();
  await stopGateway(gw);
});

const host = (method: string, path: string, init: RequestInit = {}) => front.fetch(new Request(`http://host${path}`, { method, ...init }));

async function runningSession(): Promise<string> {
  const created = await api(gw).create(project.projectId);
  expect(created.status).toBe(201);
  expect((await api(gw).settled(created.body.id)).state).toBe("running");
  return created.body.id;
}

test("the proxy: the daemon's answer with its own token (the front's Authorization is not passed on), query kept", async () => {
  const id = await runningSession();
  const res = await host("POST", `/host/v1/sessions/${id}/proxy/echo/path?q=1`, { headers: { authorization: "Bearer pat_of_the_caller", "content-type": "text/plain" }, body: "hello" });
  expect(res.status).toBe(200);
  const echoed = await res.json();
  expect(echoed).toMatchObject({ method: "POST", path: "/echo/path", search: "?q=1", body_length: 5 });
  expect(echoed.headers.authorization).not.toContain("pat_of_the_caller");
  expect(echoed.headers.authorization).toMatch(/^Bearer /);
  const teapot = await host("GET", `/host/v1/sessions/${id}/proxy/teapot`);
  expect(teapot.status).toBe(418);
  expect(teapot.headers.get("x-daemon")).toBe("yes");
  expect(await teapot.text()).toBe("short and stout");
  // The proxy's own path rules hold here too.
  expect((await host("GET", `/host/v1/sessions/${id}/proxy/a%2fb`)).status).toBe(400);
  expect((await host("GET", `/host/v1/sessions/ses_unknown0/proxy/x`)).status).toBe(404);
});

test("the proxy streams SSE; the front's abort (RESET) ends the daemon's stream", async () => {
  const id = await runningSession();
  const abort = new AbortController();
  const res = await front.fetch(new Request(`http://host/host/v1/sessions/${id}/proxy/sse`, { signal: abort.signal }));
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes("data: tick 3")) text += new TextDecoder().decode((await reader.read()).value);
  expect(text).toStartWith(": open\n\n");
  abort.abort();
  const stats = async () => (await (await host("GET", `/host/v1/sessions/${id}/proxy/stats`)).json()) as { sse_opened: number; sse_cancelled: number };
  await until(async () => (await stats()).sse_cancelled === 1, "the daemon's stream to end");
  expect((await stats()).sse_opened).toBe(1);
});

test("create, stop, health, resume and delete through the host API act on the session and its daemon", async () => {
  const created = await host("POST", "/host/v1/sessions", { headers: { "content-type": "application/json" }, body: JSON.stringify({ project_id: project.projectId, launch_mode: "project_direct" }) });
  expect(created.status).toBe(201);
  const id = (await created.json()).id as string;
  expect((await api(gw).settled(id)).state).toBe("running");
  const badMode = await host("POST", "/host/v1/sessions", { body: JSON.stringify({ project_id: project.projectId, launch_mode: "sideways" }) });
  expect(badMode.status).toBe(422);
  const early = await host("GET", `/host/v1/sessions/${id}/history`);
  expect(early.status).toBe(409);
  expect((await early.json()).code).toBe("history_requires_stopped");
  const health = await host("GET", `/host/v1/sessions/${id}/health`);
  expect(health.status).toBe(200);
  expect((await health.json()).state).toBe("running");
  const stopped = await host("POST", `/host/v1/sessions/${id}/stop`);
  expect(stopped.status).toBe(200);
  const stoppedView = await stopped.json();
  expect(stoppedView).toMatchObject({ id, state: "stopped", pid: null });
  // Not running: the supervisor's 409 comes back as it is.
  const again = await host("POST", `/host/v1/sessions/${id}/stop`);
  expect(again.status).toBe(409);
  expect((await again.json()).error).toBe("conflict");
  const proxiedWhileStopped = await host("GET", `/host/v1/sessions/${id}/proxy/x`);
  expect(proxiedWhileStopped.status).toBe(503);
  // History is read from the store on this machine; the fleet's answers (envelope {code}) come back as they are.
  const history = await host("GET", `/host/v1/sessions/${id}/history`);
  expect(history.status).toBe(409);
  expect((await history.json()).code).toBe("history_not_finalized");
  const resumed = await host("POST", `/host/v1/sessions/${id}/resume`);
  expect(resumed.status).toBe(200);
  expect((await resumed.json()).state).toBe("running");
  expect((await host("GET", `/host/v1/sessions/${id}/proxy/x`)).status).toBe(200);
  const deleted = await host("DELETE", `/host/v1/sessions/${id}`);
  expect(deleted.status).toBe(204);
  expect((await api(gw).get(id)).status).toBe(404);
});

test("project checks on this machine: path rules (canonical path, refusals with the reason) and hook status", async () => {
  const ok = await host("POST", "/host/v1/projects/check-path", { headers: { "content-type": "application/json" }, body: JSON.stringify({ path: `${project.path}/` }) });
  expect(ok.status).toBe(200);
  expect(await ok.json()).toEqual({ path: project.path });
  const dataDir = await host("POST", "/host/v1/projects/check-path", { body: JSON.stringify({ path: gw.ctx.dataDir }) });
  expect(dataDir.status).toBe(400);
  expect((await dataDir.json()).error).toBe("path_not_allowed");
  const relative = await host("POST", "/host/v1/projects/check-path", { body: JSON.stringify({ path: "relative/dir" }) });
  expect(relative.status).toBe(422);
  expect((await relative.json()).message).toContain("is not absolute");
  const noPath = await host("POST", "/host/v1/projects/check-path", { body: "{}" });
  expect(noPath.status).toBe(422);

  expect(await (await host("GET", `/host/v1/projects/${project.projectId}/hook-status`)).json()).toEqual({ has_gateway_yaml: false, configured_hooks: [] });
  mkdirSync(join(project.path, ".agent"), { recursive: true });
  writeFileSync(join(project.path, ".agent", "gateway.yaml"), "hooks:\n  on_start: {}\n");
  expect(await (await host("GET", `/host/v1/projects/${project.projectId}/hook-status`)).json()).toEqual({ has_gateway_yaml: true, configured_hooks: ["on_start"] });
  expect((await host("GET", "/host/v1/projects/0000ffff/hook-status")).status).toBe(404);
});

test("unknown routes and methods are 404 naming the route", async () => {
  for (const [method, path] of [["GET", "/host/v1/nothing"], ["PUT", "/host/v1/sessions/ses_abc/stop"], ["GET", "/api/v1/sessions"]] as const) {
    const res = await host(method, path);
    expect(res.status).toBe(404);
    expect((await res.json()).message).toBe(`the host API has no route ${method} ${path}`);
  }
});
