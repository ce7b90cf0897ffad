// `agent gateway host` as a real process (src/cli/main.ts), its daemons real `agent daemon`s: it joins a
// front, runs a session of its project created through the front's public API (GET /sync and the /events
// SSE stream through the front's session proxy; the
// daemon checks in through the agent's loopback listener, so its service credential turns active); kill -9
// the agent: the daemon keeps running; an agent started again on the same data dir re-adopts it (same
// process, no second daemon, no new launch), announces it, and the proxy works again; stopped, its history
// is read on the host. Its log lines never hold the token.
import { afterEach, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { runningWithArg } from "../../helpers/processes.ts";
import { tempDir, type TestGateway } from "../helpers.ts";
import { MAIN, stopGateway, until } from "../sessions/helpers.ts";
import { HOST, hostFront } from "./agent-helpers.ts";

const agents: Subprocess[] = [];
const fronts: TestGateway[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) a.kill("SIGKILL");
  for (const f of fronts.splice(0)) await stopGateway(f);
});

/** Everything a stream has delivered so far, read in the background. */
function collect(stream: ReadableStream<Uint8Array>): { text: string } {
  const seen = { text: "" };
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) seen.text += decoder.decode(chunk, { stream: true });
  })();
  return seen;
}

function spawnAgent(url: string, token: string, dataDir: string): Subprocess<"ignore", "pipe", "pipe"> {
  const agent = Bun.spawn([process.execPath, MAIN, "gateway", "host", "--join", url, "--name", HOST, "--data-dir", dataDir], {
    env: { ...process.env, AGENT_HOST_TOKEN: token },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  agents.push(agent);
  return agent;
}

test("kill -9 the host agent: its daemon keeps running; a restarted agent re-adopts it (no second daemon) and the proxy works again", async () => {
  const f = await hostFront();
  fronts.push(f.gw);
  const dataDir = tempDir("host-agent-kill-");
  const first = spawnAgent(f.gw.url, f.token, dataDir);
  await until(() => f.gw.ctx.hostLinks.get(HOST) !== undefined, "the agent to join");
  const created = await f.front.call("POST", "/api/v1/sessions", { project_id: f.project.projectId, launch_mode: "project_direct", host: HOST });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await until(async () => (await f.row(id))?.state === "running", "the session to run");

  const sync = await f.publicFetch(`/api/v1/sessions/${id}/proxy/sync`);
  expect(sync.status).toBe(200);
  const snapshot = await sync.json();
  expect(typeof snapshot.cursor).toBe("string");
  const abort = new AbortController();
  const events = await f.publicFetch(`/api/v1/sessions/${id}/proxy/events?after=${encodeURIComponent(snapshot.cursor)}`, { signal: abort.signal });
  expect(events.status).toBe(200);
  expect(events.headers.get("content-type")).toStartWith("text/event-stream");
  abort.abort();
  // The daemon checked in through the agent's listener and the front: its credential is active.
  await until(async () => (await f.gw.ctx.sessions.store.view((await f.row(id))!)).service_credentials.some((c) => c.state === "active"), "the daemon's check-in");

  const before = (await f.row(id))!;
  expect(runningWithArg(before.sessionDir!)).toEqual([before.pid!]);
  first.kill("SIGKILL");
  await first.exited;
  await until(() => f.gw.ctx.hostLinks.get(HOST) === undefined, "the front to lose the host");
  expect(runningWithArg(before.sessionDir!)).toEqual([before.pid!]);

  const second = spawnAgent(f.gw.url, f.token, dataDir);
  const secondLog = collect(second.stderr);
  await until(() => f.gw.ctx.hostLinks.get(HOST) !== undefined, "the agent to join again");
  const again = await f.publicFetch(`/api/v1/sessions/${id}/proxy/sync`);
  expect(again.status).toBe(200);
  expect((await again.json()).daemon_epoch).toBe(snapshot.daemon_epoch);
  const after = (await f.row(id))!;
  expect(after).toMatchObject({ state: "running", pid: before.pid, pidStartTicks: before.pidStartTicks, port: before.port });
  expect(runningWithArg(before.sessionDir!)).toEqual([before.pid!]);
  expect((await f.gw.ctx.sessions.store.view(after)).transitions.map((t) => t.trigger)).toEqual(["create", "daemon_healthy"]);
  // It told the front which daemons live on it.
  await until(() => secondLog.text.includes('"event":"host.daemons_announced"'), "the re-announcement");
  expect(secondLog.text).toContain(`"event":"host.daemons_announced","host":"${HOST}","daemons":1`);

  // Stopped: its history, asked of the front, is read from its store on the host (the daemon finalized it when it stopped).
  expect((await f.front.call("POST", `/api/v1/sessions/${id}/stop`)).status).toBe(200);
  const history = await f.publicFetch(`/api/v1/sessions/${id}/history`);
  expect(history.status).toBe(200);
  const first_page = await history.json();
  expect(first_page).toMatchObject({ version: 1, session_id: id, next_page: null });
  const again_page = await f.publicFetch(`/api/v1/sessions/${id}/history?checkpoint=${encodeURIComponent(first_page.checkpoint)}`);
  expect(again_page.status).toBe(200);
  expect((await again_page.json()).total_items).toBe(first_page.total_items);
  expect((await f.front.call("DELETE", `/api/v1/sessions/${id}`)).status).toBe(204);
  expect(runningWithArg(before.sessionDir!)).toEqual([]);
  second.kill("SIGTERM");
  expect(await second.exited).toBe(0);
  const stdout = await new Response(second.stdout).text();
  expect(stdout).toContain(`agent host ${HOST} joining ${f.gw.url}`);
  expect(stdout).toContain("stopped (its daemons keep running; the next start re-adopts them)");
  const log = (await new Response(first.stderr).text()) + secondLog.text;
  expect(log).toContain('"event":"host.front_connected"');
  expect(log).not.toContain(f.token);
});
