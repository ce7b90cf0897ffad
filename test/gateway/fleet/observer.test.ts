// The observer against fake daemons (real HTTP servers on 127.0.0.1 answering /sync/summary with their
// credential): summaries land in fleet rows and events, a changed summary is announced and an unchanged
// one is not, never more than 8 requests at a time, a hung daemon times out without holding the round,
// and an observation older than 15 seconds (fake clock) turns the row stale.
import { afterEach, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { credentialDir, type FleetGateway, startFleetGateway } from "./helpers.ts";

let f: FleetGateway;
const servers: Server<unknown>[] = [];
const releaseHung: (() => void)[] = [];
afterEach(async () => {
  for (const release of releaseHung.splice(0)) release();
  for (const s of servers.splice(0)) s.stop(true);
  await f?.stop();
});

const TOKEN = "dmn_fleet-observer-test-token-0123456789abcdef";
const summary = (over: Record<string, unknown> = {}) => ({ version: 1, daemon_epoch: "ep1", cursor: "c1", busy: false, attention: false, history_checkpoint: "", history_total_items: 0, ...over });

interface FakeDaemon {
  port: number;
  answer: Record<string, unknown>;
  requests: number;
}

const load = { now: 0, peak: 0 };

function fakeDaemon(options: { delayMs?: number; hung?: boolean } = {}): FakeDaemon {
  const daemon: FakeDaemon = { port: 0, answer: summary(), requests: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Bun's default SO_REUSEPORT lets port 0 hand out a port another test's server still holds: the kernel
    // then splits the requests between the two, and the other one answers 401 or 404.
    reusePort: false,
    async fetch(req) {
      if (new URL(req.url).pathname !== "/sync/summary") return new Response("not found", { status: 404 });
      if (req.headers.get("authorization") !== `Bearer ${TOKEN}`) return Response.json({ error: "unauthorized" }, { status: 401 });
      daemon.requests++;
      load.now++;
      load.peak = Math.max(load.peak, load.now);
      try {
        if (options.hung) await new Promise<void>((r) => releaseHung.push(r));
        if (options.delayMs) await Bun.sleep(options.delayMs);
        return Response.json({ ...daemon.answer, extra_field: "not kept" });
      } finally {
        load.now--;
      }
    },
  });
  servers.push(server);
  daemon.port = server.port!;
  return daemon;
}

async function start(limits: Parameters<typeof startFleetGateway>[0] = {}): Promise<FleetGateway> {
  f = await startFleetGateway(limits);
  await f.addProject("00000001");
  return f;
}

async function runningSession(id: string, daemon: FakeDaemon, token = TOKEN): Promise<void> {
  await f.addSession(id, { projectId: "00000001", state: "running", port: daemon.port, sessionDir: credentialDir(token), daemonEpoch: "ep1" });
}

async function sessions(): Promise<Record<string, any>> {
  const body = (await f.json("/api/v1/catalog")).body;
  return Object.fromEntries(body.sessions.map((s: any) => [s.session_id, s]));
}

function sessionEvents(from: number): any[] {
  return f.fleet.journal
    .after(from)
    .map((e) => JSON.parse(e.text))
    .filter((e) => e.type === "session_upserted");
}

describe("observer", () => {
  test("summaries of running sessions reach the catalog and the event stream; unchanged ones are not re-announced", async () => {
    await start();
    const a = fakeDaemon();
    const b = fakeDaemon();
    await runningSession("ses_a", a);
    await runningSession("ses_b", b);
    await f.addSession("ses_c", { projectId: "00000001", state: "stopped" });
    const from = f.fleet.journal.position;
    await f.fleet.tick();
    const rows = await sessions();
    expect(rows.ses_a).toMatchObject({ state: "running", summary: summary(), observed_at: new Date(f.gw.clock.now()).toISOString(), stale: false });
    expect(rows.ses_a.summary.extra_field).toBeUndefined();
    expect(rows.ses_c).toMatchObject({ summary: null, stale: false });
    expect(sessionEvents(from).map((e) => [e.session.session_id, e.session.stale, e.session.summary?.busy])).toEqual([
      ["ses_a", false, false],
      ["ses_b", false, false],
    ]);

    const quiet = f.fleet.journal.position;
    f.gw.clock.advance(5_000);
    await f.fleet.tick();
    expect(f.fleet.journal.position).toBe(quiet);
    expect((await sessions()).ses_a.observed_at).toBe(new Date(f.gw.clock.now()).toISOString());

    a.answer = summary({ busy: true, cursor: "c2" });
    await f.fleet.tick();
    expect(sessionEvents(quiet).map((e) => [e.session.session_id, e.session.summary.busy, e.session.summary.cursor])).toEqual([["ses_a", true, "c2"]]);
  });

  test("a session's plan progress reaches its catalog row and is announced when it changes", async () => {
    await start();
    const a = fakeDaemon();
    const plan = { done: 1, total: 3, current: "Port lexer.ts", text: "1/3 done: Port lexer.ts" };
    a.answer = summary({ plan: { ...plan, extra: "not kept" } });
    await runningSession("ses_a", a);
    await f.fleet.tick();
    expect((await sessions()).ses_a.summary.plan).toEqual(plan);
    const from = f.fleet.journal.position;
    a.answer = summary({ plan: { done: 2, total: 3, current: "Run the tests", text: "2/3 done: Run the tests" } });
    await f.fleet.tick();
    expect(sessionEvents(from).map((e) => e.session.summary.plan.text)).toEqual(["2/3 done: Run the tests"]);
  });

  test("the scheduler drives rounds every 5 seconds", async () => {
    await start();
    const a = fakeDaemon();
    await runningSession("ses_a", a);
    f.scheduler.fire(5_000);
    await f.fleet.observer.round();
    expect(a.requests).toBe(1);
  });

  test("never more than 8 requests at a time, and every running session is observed in one round", async () => {
    await start();
    load.peak = 0;
    const daemons = Array.from({ length: 24 }, () => fakeDaemon({ delayMs: 30 }));
    for (const [i, d] of daemons.entries()) await runningSession(`ses_${String(i).padStart(2, "0")}`, d);
    await f.fleet.tick();
    expect(load.peak).toBe(8);
    expect(daemons.every((d) => d.requests === 1)).toBe(true);
    expect(Object.values(await sessions()).every((s) => s.summary !== null && !s.stale)).toBe(true);
  });

  test("a hung daemon times out; the others are observed; a wrong credential or no port is no observation", async () => {
    // Long enough for the answering daemons on a loaded machine; the hung one never answers.
    await start({ observeTimeoutMs: 1_500 });
    const hung = fakeDaemon({ hung: true });
    const ok = fakeDaemon();
    const other = fakeDaemon();
    await runningSession("ses_hung", hung);
    await runningSession("ses_ok", ok);
    await runningSession("ses_wrong", other, "dmn_some-other-credential-0123456789abcdefgh");
    await f.addSession("ses_noport", { projectId: "00000001", state: "running", sessionDir: credentialDir(TOKEN) });
    await f.fleet.tick();
    const rows = await sessions();
    expect(hung.requests).toBe(1);
    expect(rows.ses_ok).toMatchObject({ stale: false });
    expect(rows.ses_ok.summary).not.toBeNull();
    for (const id of ["ses_hung", "ses_wrong", "ses_noport"]) expect(rows[id]).toMatchObject({ summary: null, observed_at: null, stale: true });
  });

  test("an observation older than 15 seconds is stale, and the row's turn to stale is announced", async () => {
    await start();
    const a = fakeDaemon();
    await runningSession("ses_a", a);
    await f.fleet.tick();
    servers[0]!.stop(true); // the daemon stops answering
    f.gw.clock.advance(15_000);
    const from = f.fleet.journal.position;
    await f.fleet.tick();
    expect((await sessions()).ses_a.stale).toBe(false);
    expect(sessionEvents(from)).toEqual([]);
    f.gw.clock.advance(1_000);
    await f.fleet.tick();
    const row = (await sessions()).ses_a;
    expect(row).toMatchObject({ stale: true, summary: summary() });
    const announced = sessionEvents(from);
    expect(announced).toHaveLength(1);
    expect(announced[0].session).toMatchObject({ session_id: "ses_a", stale: true });
  });

  test("a session leaving `running` drops its observation", async () => {
    await start();
    const a = fakeDaemon();
    await runningSession("ses_a", a);
    await f.fleet.tick();
    const from = f.fleet.journal.position;
    await f.setSession("ses_a", { state: "stopped", port: null });
    expect(sessionEvents(from)[0].session).toMatchObject({ state: "stopped", summary: null, observed_at: null, stale: false });
    await f.setSession("ses_a", { state: "running", port: a.port, daemonEpoch: "ep2" });
    expect(sessionEvents(from)[1].session).toMatchObject({ state: "running", summary: null, stale: true, daemon_epoch: "ep2" });
  });
});
