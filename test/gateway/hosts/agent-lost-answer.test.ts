// A host agent's launch whose running state is sent to the front as the connection drops: the front never
// records it (the request is lost with the link), so the session stays `starting` on the front while the
// host holds a healthy daemon. After the agent reconnects the row converges to the truth: running on that
// same daemon (no second one is started), or failed when the daemon ended meanwhile.
import { afterEach, expect, test } from "bun:test";
import { parseGatewayConfig } from "../../../src/gateway/config/load.ts";
import { HostAgent } from "../../../src/gateway/hosts/agent/agent.ts";
import { frontHandler } from "../../../src/gateway/hosts/front-store.ts";
import { CLOSE } from "../../../src/gateway/hosts/mux/frames.ts";
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

/**
 * A front whose host connections drop as the host sends its first `transition` to running, before the
 * front applies it; `onDrop` runs first (with the session id). Later connections are served as usual.
 */
async function droppingFront(onDrop: (sessionId: string) => Promise<void> = async () => {}) {
  const f = await hostFront();
  fronts.push(f.gw);
  let armed = true;
  let dropped = false;
  // After serve.ts's own listener: this connection's store calls pass here first.
  f.gw.ctx.hostLinks.onChange((host, connection) => {
    if (!connection) return;
    const store = frontHandler(f.gw.ctx, host, f.gw.url, (request) => fetch(request));
    connection.serve(async (request) => {
      if (!armed || !new URL(request.url).pathname.endsWith("/transition")) return store(request);
      const body = await request.text();
      const args = (JSON.parse(body) as { args: unknown[] }).args;
      if (args[2] !== "running") return store(new Request(request.url, { method: request.method, headers: request.headers, body }));
      armed = false;
      await onDrop(args[0] as string);
      connection.close(CLOSE.INTERNAL, "test: the link drops with the running state");
      dropped = true;
      return Response.json({ error: "dropped" }, { status: 502 });
    });
  });
  return Object.assign(f, { dropped: () => dropped });
}

function startAgent(url: string, token: string): HostAgent {
  const logger = { info() {}, warn() {}, error() {} };
  const agent = new HostAgent({ urls: [url], token, config: parseGatewayConfig(`auth: {}\nhost_name: ${HOST}\n${FAST}`, "<test>"), dataDir: tempDir("host-agent-"), fingerprints: [], logger, daemonCommand: FAKE_DAEMON_COMMAND });
  agents.push(agent);
  agent.start();
  return agent;
}

/** Joins a host agent to `f`'s front and creates a session on it; returns the id once its running state was sent as the link dropped. */
async function launchAsTheLinkDrops(f: Awaited<ReturnType<typeof droppingFront>>): Promise<string> {
  startAgent(f.gw.url, f.token);
  await until(() => f.gw.ctx.hostLinks.get(HOST) !== undefined, "the agent to join");
  const created = await f.front.call("POST", "/api/v1/sessions", { project_id: f.project.projectId, launch_mode: "project_direct" });
  expect(created.status).toBe(201);
  await until(() => f.dropped(), "the running state to be sent as the link drops");
  return created.body.id;
}

async function transitions(f: Awaited<ReturnType<typeof hostFront>>, id: string): Promise<string[]> {
  return (await f.gw.ctx.sessions.store.view((await f.row(id))!)).transitions.map((t) => `${t.from}->${t.to}:${t.trigger}`);
}

test("the running state lost with the connection: after the reconnect the session runs on the daemon the host held, and no second daemon was started", async () => {
  const f = await droppingFront();
  const id = await launchAsTheLinkDrops(f);
  // The front never saw it: the row is starting, with the process the launch recorded.
  const spawned = (await f.row(id))!;
  expect(spawned.state).toBe("starting");
  expect(spawned.pid).not.toBeNull();

  await until(async () => (await f.row(id))?.state === "running", "the session to be recorded running after the reconnect");
  const running = (await f.row(id))!;
  expect(running).toMatchObject({ pid: spawned.pid, pidStartTicks: spawned.pidStartTicks, daemonEpoch: "ep_fake" });
  expect(runningWithArg(running.sessionDir!)).toEqual([running.pid!]);
  expect(await transitions(f, id)).toEqual(["null->starting:create", "starting->running:daemon_healthy"]);
  // The front proxies to it through the host, and the record reads running.
  const proxied = await f.publicFetch(`/api/v1/sessions/${id}/proxy/after`);
  expect(proxied.status).toBe(200);
  expect((await proxied.json()).path).toBe("/after");
  expect((await f.front.get(id)).body).toMatchObject({ state: "running", pid: spawned.pid });
  expect(runningWithArg(running.sessionDir!)).toEqual([running.pid!]);
  expect((await f.front.call("DELETE", `/api/v1/sessions/${id}`)).status).toBe(204);
}, 60_000);

test("the running state lost with the connection and the daemon gone before the reconnect: the session is failed, nothing is started in its place", async () => {
  let killed = 0;
  const f = await droppingFront(async (id) => {
    const row = (await f.row(id))!;
    killed = row.pid!;
    process.kill(killed, "SIGKILL");
  });
  const id = await launchAsTheLinkDrops(f);

  await until(async () => (await f.row(id))?.state === "failed", "the session to be recorded failed after the reconnect");
  const failed = (await f.row(id))!;
  expect(failed).toMatchObject({ pid: null, port: null });
  const steps = await transitions(f, id);
  expect(steps[0]).toBe("null->starting:create");
  expect(steps.at(-1)).toMatch(/^starting->failed:/);
  expect(steps.some((s) => s.includes("->running"))).toBe(false);
  expect(runningWithArg(failed.sessionDir!)).toEqual([]);
  expect((await f.front.get(id)).body.service_credentials.at(-1)).toMatchObject({ state: "invalidated" });
}, 60_000);
