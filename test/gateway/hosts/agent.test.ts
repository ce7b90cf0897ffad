// A host agent in this process, its own data dir, joined to a real front: it connects (the host is online);
// through the front's public API (front routing) a session of its project is created here (directory
// here, the row written by the front as this host's) and its daemon (the fake daemon) launched; the
// session proxy reaches the daemon (GET and an SSE stream); stop, resume and delete act through it; with no front reachable the
// supervisor answers 503. A killed agent's restart: agent-kill.test.ts.
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseGatewayConfig } from "../../../src/gateway/config/load.ts";
import { HostAgent } from "../../../src/gateway/hosts/agent/agent.ts";
import { hostOnline } from "../../../src/gateway/hosts/presence.ts";
import { runningWithArg } from "../../helpers/processes.ts";
import { tempDir, type TestGateway } from "../helpers.ts";
import { FAKE_DAEMON_COMMAND, FAST, stopGateway, until } from "../sessions/helpers.ts";
import { HOST, hostFront } from "./agent-helpers.ts";

const agents: HostAgent[] = [];
const fronts: TestGateway[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) a.stop();
  for (const f of fronts.splice(0)) await stopGateway(f);
});

function startAgent(url: string, token: string, dataDir: string): HostAgent {
  const logger = { info() {}, warn() {}, error() {} };
  const agent = new HostAgent({ urls: [url], token, config: parseGatewayConfig(`auth: {}\nhost_name: ${HOST}\n${FAST}`, "<test>"), dataDir, fingerprints: [], logger, daemonCommand: FAKE_DAEMON_COMMAND });
  agents.push(agent);
  agent.start();
  return agent;
}

test("through the front's public API: a session of the host's project is created, launched and proxied (GET, SSE) on the host; stop, resume and delete reach it; the front writes its rows", async () => {
  const f = await hostFront();
  fronts.push(f.gw);
  const dataDir = tempDir("host-agent-");
  startAgent(f.gw.url, f.token, dataDir);
  await until(() => hostOnline(f.gw.ctx, HOST), "the host to be online");

  const created = await f.front.call("POST", "/api/v1/sessions", { project_id: f.project.projectId, launch_mode: "project_direct", host: HOST });
  expect(created.status).toBe(201);
  const view = created.body;
  expect(view).toMatchObject({ project_id: f.project.projectId, state: "starting", owner_host: HOST });
  // The session's directory is on the host, under its data dir.
  expect(existsSync(join(dataDir, "sessions", view.id))).toBe(true);
  await until(async () => (await f.row(view.id))?.state === "running", "the session to run");
  const running = (await f.row(view.id))!;
  expect(running).toMatchObject({ ownerHost: HOST, sessionDir: join(dataDir, "sessions", view.id), daemonEpoch: "ep_fake" });
  expect(runningWithArg(running.sessionDir!)).toEqual([running.pid!]);
  // Read through the front: the host's on-demand check, running, host online.
  expect((await f.front.get(view.id)).body).toMatchObject({ state: "running", owner_host: HOST, host_online: true });

  const echoed = await f.publicFetch(`/api/v1/sessions/${view.id}/proxy/echo?x=1`);
  expect(echoed.status).toBe(200);
  const echo = await echoed.json();
  expect(echo).toMatchObject({ method: "GET", path: "/echo", search: "?x=1" });
  // The daemon sees its own token, never the caller's.
  expect(echo.headers.authorization).not.toContain("pat_");
  const abort = new AbortController();
  const sse = await f.publicFetch(`/api/v1/sessions/${view.id}/proxy/sse`, { signal: abort.signal });
  expect(sse.headers.get("content-type")).toBe("text/event-stream");
  const reader = sse.body!.getReader();
  let text = "";
  while (!text.includes("data: tick 2")) text += new TextDecoder().decode((await reader.read()).value);
  abort.abort();
  await until(async () => (await (await f.publicFetch(`/api/v1/sessions/${view.id}/proxy/stats`)).json()).sse_cancelled === 1, "the daemon's stream to end");

  const stopped = await f.front.call("POST", `/api/v1/sessions/${view.id}/stop`);
  expect(stopped.status).toBe(200);
  expect(stopped.body).toMatchObject({ state: "stopped", pid: null });
  expect((await f.row(view.id))!.state).toBe("stopped");
  expect(runningWithArg(running.sessionDir!)).toEqual([]);
  const resumed = await f.front.call("POST", `/api/v1/sessions/${view.id}/resume`);
  expect(resumed.status).toBe(200);
  expect(resumed.body.state).toBe("running");
  expect((await f.publicFetch(`/api/v1/sessions/${view.id}/proxy/x`)).status).toBe(200);
  const transitions = (await f.gw.ctx.sessions.store.view((await f.row(view.id))!)).transitions.map((t) => `${t.from}->${t.to}:${t.trigger}`);
  expect(transitions).toEqual(["null->starting:create", "starting->running:daemon_healthy", "running->stopped:stop", "stopped->running:resume"]);

  expect((await f.front.call("DELETE", `/api/v1/sessions/${view.id}`)).status).toBe(204);
  expect(await f.row(view.id)).toBeUndefined();
  expect(existsSync(join(dataDir, "sessions", view.id))).toBe(false);
  expect(runningWithArg(running.sessionDir!)).toEqual([]);
});

test("an agent stopped (SIGTERM's path) and started again on its data dir re-adopts its running daemon: same process, no second one, no new launch", async () => {
  const f = await hostFront();
  fronts.push(f.gw);
  const dataDir = tempDir("host-agent-");
  const first = startAgent(f.gw.url, f.token, dataDir);
  await until(() => f.gw.ctx.hostLinks.get(HOST) !== undefined, "the agent to join");
  const created = await f.front.call("POST", "/api/v1/sessions", { project_id: f.project.projectId, launch_mode: "project_direct" });
  expect(created.status).toBe(201);
  await until(async () => (await f.row(created.body.id))?.state === "running", "the session to run");
  const before = (await f.row(created.body.id))!;
  first.stop();
  await until(() => f.gw.ctx.hostLinks.get(HOST) === undefined, "the front to lose the host");
  // The daemon outlives its agent.
  expect(runningWithArg(before.sessionDir!)).toEqual([before.pid!]);
  startAgent(f.gw.url, f.token, dataDir);
  await until(() => f.gw.ctx.hostLinks.get(HOST) !== undefined, "the agent to join again");
  const proxied = await f.publicFetch(`/api/v1/sessions/${created.body.id}/proxy/again`);
  expect(proxied.status).toBe(200);
  expect((await proxied.json()).path).toBe("/again");
  expect((await f.row(created.body.id))!).toMatchObject({ state: "running", pid: before.pid, pidStartTicks: before.pidStartTicks, port: before.port });
  expect(runningWithArg(before.sessionDir!)).toEqual([before.pid!]);
  expect((await f.gw.ctx.sessions.store.view((await f.row(created.body.id))!)).transitions.map((t) => t.trigger)).toEqual(["create", "daemon_healthy"]);
  expect((await f.front.call("DELETE", `/api/v1/sessions/${created.body.id}`)).status).toBe(204);
});

test("with no front reachable the host's supervisor answers 503 no_front_reachable and changes nothing", async () => {
  const agent = new HostAgent({ urls: ["http://127.0.0.1:9"], token: "hst_unused", config: parseGatewayConfig(`auth: {}\nhost_name: ${HOST}\n`, "<test>"), dataDir: tempDir("host-agent-"), fingerprints: [], logger: { info() {}, warn() {}, error() {} } });
  const refused = await agent.supervisor.create("0000aaaa", "project_direct").catch((e) => e);
  expect(refused).toMatchObject({ status: 503, code: "no_front_reachable" });
  expect(refused.message).toContain("no gateway front reachable from host build-1");
});
