// One fleet across hosts (issue 39 item 5): two fronts on one PostgreSQL database (replicas: shared pepper,
// each its own FakeClock), two host agents with their own data dirs, build-1 reaching each front through a
// TCP proxy of its own (test/helpers/tcp-proxy.ts), the partition switch. Kill -9 a host agent: its daemon keeps
// running, both fronts show its session stale once the presence lease passes, a restarted agent re-adopts
// it. Partition a host and heal: nothing failed, nothing duplicated, both fronts agree; a daemon that
// exited behind the partition is recorded once it heals. A proxied SSE
// stream survives the death of the front it went through by reconnecting through the other with
// Last-Event-ID. `agent connect` lists the sessions of both hosts; each answers through the session proxy.
import { afterEach, beforeAll, expect } from "bun:test";
import { randomBytes } from "node:crypto";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { EventSource } from "eventsource";
import { parseGatewayConfig } from "../../../src/gateway/config/load.ts";
import { HostAgent } from "../../../src/gateway/hosts/agent/agent.ts";
import { PRESENCE_TTL_MS } from "../../../src/gateway/hosts/presence.ts";
import { BINARY, ensureBinary } from "../../helpers/binary.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";
import { processExists, runningWithArg } from "../../helpers/processes.ts";
import { TcpProxy, targetOf } from "../../helpers/tcp-proxy.ts";
import { TermSession } from "../../tui/terminal.ts";
import { addUser, sqlAll, startTestGateway, tempDir, type TestGateway } from "../helpers.ts";
import { FAKE_DAEMON_COMMAND, FAST, MAIN, machineToken, registerProject, until } from "../sessions/helpers.ts";

const RESUMABLE_DAEMON_COMMAND = [process.execPath, join(import.meta.dir, "resumable-sse-daemon.ts")];
const HOSTS = ["build-1", "build-2"] as const;
type Host = (typeof HOSTS)[number];

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * The host behind the partition switch: it reaches each front through a TCP proxy of its own. A front
 * answers only a Host header naming it (421 otherwise), and `auth.external_url` adds one name and port, so
 * each front names its proxy there; the other host dials the fronts directly.
 */
const SWITCHED: Host = "build-1";

interface Fleet {
  fronts: [TestGateway, TestGateway];
  tokens: Record<Host, string>;
  projects: Record<Host, string>;
  /** SWITCHED's proxy to each front (index as `fronts`). */
  proxies: [TcpProxy, TcpProxy];
  machine: string;
}

/**
 * Two fronts (front-a, front-b) on one fresh PostgreSQL database (each serves the session store and the
 * services routes on the host connections it holds). A host credential and a project per host.
 */
async function startFleet(): Promise<Fleet> {
  const database = await freshPgDatabase();
  const pepperFile = join(tempDir("fleet-pepper-"), "pepper");
  writeFileSync(pepperFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  const started: TestGateway[] = [];
  const proxies: TcpProxy[] = [];
  cleanups.push(async () => {
    for (const p of proxies) p.close();
    for (const gw of started) await gw.stop().catch(() => {});
  });
  for (const name of ["front-a", "front-b"]) {
    // Listening before its front starts (its target is set once the front's port is known).
    const proxy = new TcpProxy({ host: "127.0.0.1", port: 0 });
    proxies.push(proxy);
    const gw = await startTestGateway(`host_name: ${name}\n${FAST}`, { database, auth: `    pepper_file: ${pepperFile}\n  external_url: ${proxy.url}\n` });
    proxy.target = targetOf(gw.url);
    started.push(gw);
  }
  const fronts = started as [TestGateway, TestGateway];
  const [a, b] = fronts;
  const tokens = {} as Record<Host, string>;
  const projects = {} as Record<Host, string>;
  for (const host of HOSTS) {
    tokens[host] = (await a.ctx.hostCredentials.create(host)).token;
    const project = await registerProject(a);
    await sqlAll(a.ctx.db, "UPDATE projects SET owner_host = ? WHERE id = ?", [host, project.projectId]);
    // registerProject writes the configuration as files only (no content in its row, as one from before the
    // database held it): the host's launch may ask either front, so each has the files.
    cpSync(join(a.ctx.dataDir, "configurations", project.configName), join(b.ctx.dataDir, "configurations", project.configName), { recursive: true });
    projects[host] = project.projectId;
  }
  return { fronts, tokens, projects, proxies: proxies as [TcpProxy, TcpProxy], machine: await machineToken(a) };
}

/** The URLs a host's agent joins: SWITCHED's proxies, or the fronts themselves. */
function joinUrls(fleet: Fleet, host: Host): string[] {
  return host === SWITCHED ? fleet.proxies.map((p) => p.url) : fleet.fronts.map((gw) => gw.url);
}

/** A host agent in this process (its daemons: `daemonCommand`), joined to both fronts through its proxies. */
function startAgent(fleet: Fleet, host: Host, dataDir = tempDir(`fleet-${host}-`), daemonCommand = FAKE_DAEMON_COMMAND): HostAgent {
  const logger = { info() {}, warn() {}, error() {} };
  const agent = new HostAgent({
    urls: joinUrls(fleet, host),
    token: fleet.tokens[host],
    config: parseGatewayConfig(`auth: {}\nhost_name: ${host}\n${FAST}`, "<test>"),
    dataDir,
    fingerprints: [],
    logger,
    daemonCommand,
  });
  cleanups.push(() => agent.stop());
  agent.start();
  return agent;
}

/** `agent gateway host` as a real process (its daemons real `agent daemon`s), joined through its proxies. */
function spawnAgent(fleet: Fleet, host: Host, dataDir: string): Subprocess<"ignore", "ignore", "ignore"> {
  const joins = joinUrls(fleet, host).flatMap((url) => ["--join", url]);
  const agent = Bun.spawn([process.execPath, MAIN, "gateway", "host", ...joins, "--name", host, "--data-dir", dataDir], {
    env: { ...process.env, AGENT_HOST_TOKEN: fleet.tokens[host] },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  cleanups.push(() => agent.kill("SIGKILL"));
  return agent;
}

/** A request to a front's public API with the fleet's machine token. */
function call(fleet: Fleet, gw: TestGateway, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${fleet.machine}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function json(res: Response, what: string): Promise<any> {
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${what}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const held = (gw: TestGateway, host: Host) => gw.ctx.hostLinks.get(host) !== undefined;
const bothHold = (fleet: Fleet, host: Host) => fleet.fronts.every((gw) => held(gw, host));
const noneHolds = (fleet: Fleet, host: Host) => fleet.fronts.every((gw) => !held(gw, host));

/** Creates a session of `host`'s project through `gw` and waits until it runs; its row (from that front). */
async function runningSession(fleet: Fleet, gw: TestGateway, host: Host) {
  const created = await json(await call(fleet, gw, "POST", "/api/v1/sessions", { project_id: fleet.projects[host], launch_mode: "project_direct", host }), `create a session on ${host} through ${gw.ctx.config.host_name}`);
  expect(created).toMatchObject({ owner_host: host, state: "starting" });
  const id = created.id as string;
  await until(async () => (await gw.ctx.sessions.store.session(id))?.state === "running", `session ${id} on ${host} to run`);
  const row = (await gw.ctx.sessions.store.session(id))!;
  // Daemons outlive their host agent by design; a test must not leave them running.
  cleanups.push(() => {
    for (const pid of runningWithArg(row.sessionDir!)) process.kill(pid, "SIGKILL");
  });
  return row;
}

/** The session as a front's session list has it (read from the shared database). */
async function listed(fleet: Fleet, gw: TestGateway, id: string): Promise<any> {
  const all = await json(await call(fleet, gw, "GET", "/api/v1/sessions"), `the session list of ${gw.ctx.config.host_name}`);
  return (all as any[]).find((s) => s.id === id);
}

/** The session's row in a front's fleet catalog. */
async function catalogRow(fleet: Fleet, gw: TestGateway, id: string): Promise<any> {
  const body = await json(await call(fleet, gw, "GET", "/api/v1/catalog"), `the catalog of ${gw.ctx.config.host_name}`);
  return body.sessions.find((s: any) => s.session_id === id);
}

/** Moves both fronts' clocks past the presence lease and has each push its presence at that time. */
async function leasePasses(fleet: Fleet): Promise<void> {
  for (const gw of fleet.fronts) gw.clock.advance(PRESENCE_TTL_MS + 1_000);
  for (const gw of fleet.fronts) await gw.ctx.presence.refresh();
}

/** The transitions of a session as the front records them, `from->to:trigger`. */
async function transitions(gw: TestGateway, id: string): Promise<string[]> {
  const view = await gw.ctx.sessions.store.view((await gw.ctx.sessions.store.session(id))!);
  return view.transitions.map((t) => `${t.from}->${t.to}:${t.trigger}`);
}

pgTest("kill -9 a host agent: its daemon keeps running, both fronts show its session stale (host_online false) once the lease passes, never failed; a restarted agent re-adopts it (same pid) and the proxy answers through either front", async () => {
  const fleet = await startFleet();
  const [a, b] = fleet.fronts;
  const dataDir = tempDir("fleet-build-1-");
  const first = spawnAgent(fleet, "build-1", dataDir);
  startAgent(fleet, "build-2");
  await until(() => bothHold(fleet, "build-1") && bothHold(fleet, "build-2"), "both fronts to hold both hosts");

  const one = await runningSession(fleet, a, "build-1");
  const two = await runningSession(fleet, b, "build-2");
  const sync = await json(await call(fleet, b, "GET", `/api/v1/sessions/${one.id}/proxy/sync`), "the daemon's /sync through front-b");
  expect(typeof sync.daemon_epoch).toBe("string");
  expect(runningWithArg(one.sessionDir!)).toEqual([one.pid!]);

  first.kill("SIGKILL");
  await first.exited;
  await until(() => noneHolds(fleet, "build-1"), "both fronts to lose build-1");
  expect(processExists(one.pid!)).toBe(true);
  expect(runningWithArg(one.sessionDir!)).toEqual([one.pid!]);
  // While it is away its sessions cannot be reached, whichever front is asked.
  for (const gw of fleet.fronts) {
    const refused = await call(fleet, gw, "GET", `/api/v1/sessions/${one.id}/proxy/sync`);
    expect(refused.status).toBe(503);
    expect((await refused.json()).error).toBe("host_offline");
  }

  await leasePasses(fleet);
  for (const gw of fleet.fronts) {
    expect(await listed(fleet, gw, one.id)).toMatchObject({ state: "running", owner_host: "build-1", host_online: false });
    expect(await listed(fleet, gw, two.id)).toMatchObject({ state: "running", owner_host: "build-2", host_online: true });
    await until(async () => (await catalogRow(fleet, gw, one.id))?.stale === true, `${gw.ctx.config.host_name}'s catalog to show build-1's session stale`);
    expect(await catalogRow(fleet, gw, one.id)).toMatchObject({ state: "running", host_online: false, stale: true });
    expect((await catalogRow(fleet, gw, two.id))?.host_online).toBe(true);
  }
  expect(processExists(one.pid!)).toBe(true);

  spawnAgent(fleet, "build-1", dataDir);
  await until(() => bothHold(fleet, "build-1"), "both fronts to hold build-1 again");
  for (const gw of fleet.fronts) {
    const again = await json(await call(fleet, gw, "GET", `/api/v1/sessions/${one.id}/proxy/sync`), `/sync through ${gw.ctx.config.host_name} after the restart`);
    expect(again.daemon_epoch).toBe(sync.daemon_epoch);
    expect(await listed(fleet, gw, one.id)).toMatchObject({ state: "running", host_online: true, pid: one.pid });
  }
  expect(runningWithArg(one.sessionDir!)).toEqual([one.pid!]);
  expect(await transitions(a, one.id)).toEqual(["null->starting:create", "starting->running:daemon_healthy"]);

  expect((await call(fleet, b, "DELETE", `/api/v1/sessions/${one.id}`)).status).toBe(204);
  expect(runningWithArg(one.sessionDir!)).toEqual([]);
}, 120_000);

pgTest("partition a host from both fronts and heal: nothing failed, nothing duplicated, both fronts and the host agree", async () => {
  const fleet = await startFleet();
  const [a, b] = fleet.fronts;
  startAgent(fleet, "build-1");
  startAgent(fleet, "build-2");
  await until(() => bothHold(fleet, "build-1") && bothHold(fleet, "build-2"), "both fronts to hold both hosts");
  const one = await runningSession(fleet, a, "build-1");
  const two = await runningSession(fleet, b, "build-2");

  // The partition: build-1's connections are cut and its redials are held unanswered.
  for (const p of fleet.proxies) p.pause();
  for (const p of fleet.proxies) p.cut();
  await until(() => noneHolds(fleet, "build-1"), "both fronts to lose build-1");
  await until(() => fleet.proxies.every((p) => p.open > 0), "build-1 to redial into the partition");
  await leasePasses(fleet);
  for (const gw of fleet.fronts) {
    expect(await listed(fleet, gw, one.id)).toMatchObject({ state: "running", host_online: false, pid: one.pid });
    expect(await listed(fleet, gw, two.id)).toMatchObject({ state: "running", host_online: true });
    // A lifecycle operation is refused, not applied elsewhere.
    const stop = await call(fleet, gw, "POST", `/api/v1/sessions/${one.id}/stop`);
    expect(stop.status).toBe(503);
    expect((await stop.json()).error).toBe("host_offline");
  }
  // Behind the partition the daemon runs on, once.
  expect(runningWithArg(one.sessionDir!)).toEqual([one.pid!]);

  for (const p of fleet.proxies) p.resume();
  await until(() => bothHold(fleet, "build-1"), "both fronts to hold build-1 after the heal");
  for (const gw of fleet.fronts) await gw.ctx.presence.refresh();
  const views = [];
  for (const gw of fleet.fronts) {
    views.push(await listed(fleet, gw, one.id));
    const echo = await json(await call(fleet, gw, "GET", `/api/v1/sessions/${one.id}/proxy/echo`), `the daemon through ${gw.ctx.config.host_name}`);
    expect(echo).toMatchObject({ method: "GET", path: "/echo" });
  }
  expect(views[0]).toMatchObject({ state: "running", host_online: true, pid: one.pid, port: one.port });
  expect(views[1]).toEqual(views[0]);
  // The host's view: its on-demand check through each front, and its processes.
  for (const gw of fleet.fronts) expect(await json(await call(fleet, gw, "GET", `/api/v1/sessions/${one.id}`), "the host's check")).toMatchObject({ state: "running", pid: one.pid, host_online: true });
  expect(runningWithArg(one.sessionDir!)).toEqual([one.pid!]);
  expect(runningWithArg(two.sessionDir!)).toEqual([two.pid!]);
  expect(await transitions(b, one.id)).toEqual(["null->starting:create", "starting->running:daemon_healthy"]);
  expect(await transitions(a, two.id)).toEqual(["null->starting:create", "starting->running:daemon_healthy"]);
}, 120_000);

pgTest("a daemon that exits behind the partition is recorded once it heals: both fronts show the same ending, and no daemon is started in its place", async () => {
  const fleet = await startFleet();
  startAgent(fleet, "build-1");
  await until(() => bothHold(fleet, "build-1"), "both fronts to hold build-1");
  const one = await runningSession(fleet, fleet.fronts[0], "build-1");

  for (const p of fleet.proxies) p.pause();
  for (const p of fleet.proxies) p.cut();
  await until(() => noneHolds(fleet, "build-1"), "both fronts to lose build-1");
  process.kill(one.pid!, "SIGKILL");
  await until(() => !processExists(one.pid!), "the daemon to be gone");
  // Nobody could record it yet: both fronts still have it running.
  for (const gw of fleet.fronts) expect((await gw.ctx.sessions.store.session(one.id))!.state).toBe("running");

  for (const p of fleet.proxies) p.resume();
  await until(() => bothHold(fleet, "build-1"), "both fronts to hold build-1 after the heal");
  await until(async () => (await fleet.fronts[0].ctx.sessions.store.session(one.id))!.state !== "running", "the exit to be recorded after the heal");
  const views = [];
  for (const gw of fleet.fronts) views.push(await listed(fleet, gw, one.id));
  expect(views[0].state).toBe("failed");
  expect(views[0].pid).toBeNull();
  expect(views[1]).toEqual(views[0]);
  expect(runningWithArg(one.sessionDir!)).toEqual([]);
}, 120_000);

pgTest("a proxied SSE stream through front-a survives front-a's death: the client reconnects through front-b with Last-Event-ID and continues without a gap or a repeat", async () => {
  const fleet = await startFleet();
  const [a, b] = fleet.fronts;
  startAgent(fleet, "build-1", undefined, RESUMABLE_DAEMON_COMMAND);
  await until(() => bothHold(fleet, "build-1"), "both fronts to hold build-1");
  const one = await runningSession(fleet, a, "build-1");

  // A load balancer in the client: front-a while it answers, else front-b. The request's Last-Event-ID
  // is the EventSource's own.
  const requests: { front: string; lastEventId: string | null }[] = [];
  const balanced = async (url: string | URL, init: any) => {
    const path = new URL(url).pathname;
    const headers = { ...init.headers, authorization: `Bearer ${fleet.machine}` };
    for (const gw of [a, b]) {
      try {
        const res = await fetch(`${gw.url}${path}`, { ...init, headers });
        requests.push({ front: gw.ctx.config.host_name, lastEventId: new Headers(init.headers).get("last-event-id") });
        return res;
      } catch {
        // this front is gone: the next one
      }
    }
    throw new Error("no front answered");
  };
  const seen: { n: number; pid: number; id: string }[] = [];
  const source = new EventSource(`${a.url}/api/v1/sessions/${one.id}/proxy/events`, { fetch: balanced });
  cleanups.push(() => source.close());
  source.onmessage = (e) => seen.push({ ...JSON.parse(e.data), id: e.lastEventId });
  await until(() => seen.length >= 5, "five events through front-a");
  expect(requests).toEqual([{ front: "front-a", lastEventId: null }]);

  await a.stop();
  const before = seen.length;
  await until(() => seen.length >= before + 5, "five more events after front-a stopped");
  expect(requests.length).toBe(2);
  expect(requests[1]!.front).toBe("front-b");
  expect(Number(requests[1]!.lastEventId)).toBeGreaterThanOrEqual(5);
  source.close();
  // One daemon, every event once, in order.
  expect(seen.map((e) => e.n)).toEqual(seen.map((_, i) => i + 1));
  expect(new Set(seen.map((e) => e.pid))).toEqual(new Set([one.pid!]));
  expect(runningWithArg(one.sessionDir!)).toEqual([one.pid!]);
}, 120_000);

beforeAll(() => ensureBinary(), 180_000);

pgTest("agent connect lists the sessions of both hosts (HOST column); each answers through the session proxy with the sign-in agent connect keeps; a host gone offline turns its row offline", async () => {
  const fleet = await startFleet();
  const [a, b] = fleet.fronts;
  startAgent(fleet, "build-1");
  const agent2 = startAgent(fleet, "build-2");
  await until(() => bothHold(fleet, "build-1") && bothHold(fleet, "build-2"), "both fronts to hold both hosts");
  const one = await runningSession(fleet, a, "build-1");
  const two = await runningSession(fleet, b, "build-2");
  await addUser(a, "ann", "pw-of-ann-42");

  const base = tempDir("fleet-connect-");
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color", USER: "nobody-here" };
  const target = `127.0.0.1:${b.server.port}`;
  const t = new TermSession([BINARY, "connect", target], { cwd: base, env, cols: 160 });
  cleanups.push(() => t.close());
  await t.waitFor("Username", "the username prompt");
  t.write("ann");
  await t.waitFor((s) => s.screen().includes("ann"), "the typed username");
  t.write("\r");
  await t.waitFor("Password", "the password prompt");
  t.write("pw-of-ann-42");
  await t.waitFor((s) => s.screen().includes("▪▪▪"), "the masked password");
  t.write("\r");
  await t.waitFor("Sessions (2)", "the picker with both hosts' sessions");
  await t.waitFor(/SESSION\s+STATE\s+HOST\s+PROJECT/, "the picker's HOST column");
  await t.waitFor(new RegExp(`${one.id}\\s+running\\s+build-1`), "build-1's session in the picker");
  await t.waitFor(new RegExp(`${two.id}\\s+running\\s+build-2`), "build-2's session in the picker");

  // Attach is the session proxy with agent connect's own sign-in: each host's daemon answers.
  const stored = JSON.parse(readFileSync(join(env.XDG_DATA_HOME, "agent", "gateway-client", "tokens", `127.0.0.1_${b.server.port}.json`), "utf8"));
  const access = stored.access_token;
  expect(typeof access).toBe("string");
  for (const s of [one, two]) {
    const res = await fetch(`${b.url}/api/v1/sessions/${s.id}/proxy/echo`, { headers: { authorization: `Bearer ${access}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ method: "GET", path: "/echo" });
  }

  // build-2's agent goes away: once the lease passes its row turns offline by itself (the fleet's event
  // stream), and Enter on it says why instead of attaching.
  agent2.stop();
  await until(() => noneHolds(fleet, "build-2"), "both fronts to lose build-2");
  await leasePasses(fleet);
  await t.waitFor(new RegExp(`${two.id}\\s+offline\\s+build-2`), "build-2's session offline in the picker", 60_000);
  expect(t.screen()).toMatch(new RegExp(`${one.id}\\s+running\\s+build-1`));
  t.write("\x1b");
}, 180_000);
