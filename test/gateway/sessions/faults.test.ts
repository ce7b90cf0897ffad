// Supervisor faults with real processes: a killed daemon, a daemon that ignores SIGTERM, a hung daemon,
// a daemon whose port closed, and a gateway restart with sessions running (re-adopted or failed).
import { sqlAll } from "../helpers.ts";
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { api, DAEMON_COMMAND, FAKE_DAEMON_COMMAND, registerProject, sessionGateway, stopGateway, until } from "./helpers.ts";
import { processExists, processRunning } from "../../helpers/processes.ts";

const gateways: Awaited<ReturnType<typeof sessionGateway>>[] = [];
const pids: number[] = [];

afterAll(async () => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const gw of gateways) await stopGateway(gw);
});

async function gateway(dataDir?: string) {
  const gw = await sessionGateway("", dataDir);
  gateways.push(gw);
  return gw;
}

describe("daemon faults", () => {
  test("kill -9: the session fails, its credential is invalidated with the cause, the child is reaped", async () => {
    const gw = await gateway();
    const a = api(gw);
    const id = (await a.create((await registerProject(gw)).projectId)).body.id;
    const running = await a.settled(id);
    expect(running.state).toBe("running");
    process.kill(running.pid!, "SIGKILL");
    await until(async () => (await a.call("GET", "/api/v1/sessions")).body.find((s: any) => s.id === id).state === "failed", "the watcher to fail the session");
    const failed = (await a.get(id)).body;
    expect(failed.transitions.at(-1)).toMatchObject({ from: "running", to: "failed", trigger: "daemon_exited" });
    expect(failed.service_credentials.at(-1)).toMatchObject({ state: "invalidated", invalidation_cause: "watcher_daemon_exit" });
    expect(processExists(running.pid!)).toBe(false);
    expect((await a.call("GET", `/api/v1/sessions/${id}/proxy/sync`)).body).toMatchObject({ error: "session_not_running", state: "failed" });
    // A failed session resumes with a fresh daemon.
    const resumed = await a.call("POST", `/api/v1/sessions/${id}/resume`);
    expect(resumed.body).toMatchObject({ state: "running" });
    expect(resumed.body.transitions.at(-1)).toMatchObject({ from: "failed", to: "running", trigger: "resume" });
    expect((await a.call("DELETE", `/api/v1/sessions/${id}`)).status).toBe(204);
  }, 60_000);

  test("a daemon that ignores the terminate request and SIGTERM is SIGKILLed after stop_timeout_secs; its unread bootstrap file is removed", async () => {
    const gw = await gateway();
    gw.ctx.sessions.daemonCommand = [...FAKE_DAEMON_COMMAND, "--mode=ignore-term"];
    const a = api(gw);
    const id = (await a.create((await registerProject(gw)).projectId)).body.id;
    const running = await a.settled(id);
    expect(running.state).toBe("running");
    pids.push(running.pid!);
    // The fake never read its bootstrap file: cleanup removes it (just after the session shows running),
    // and the credential was never used.
    await until(() => readdirSync(join(gw.ctx.dataDir, "sessions", id)).every((f) => !f.startsWith("bootstrap-")), "the launch to remove the unread bootstrap file");
    expect(running.service_credentials[0]!.state).toBe("pending");

    const stopped = await a.call("POST", `/api/v1/sessions/${id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.state).toBe("stopped");
    expect(stopped.body.service_credentials[0]).toMatchObject({ state: "invalidated", invalidation_cause: "session_stopped" });
    expect(processExists(running.pid!)).toBe(false);
  }, 60_000);

  test("a hung daemon: the proxy answers 504 within proxy_connect_timeout_secs; GET fails the session and ends the process", async () => {
    const gw = await gateway();
    const a = api(gw);
    const id = (await a.create((await registerProject(gw)).projectId)).body.id;
    const running = await a.settled(id);
    pids.push(running.pid!);
    process.kill(running.pid!, "SIGSTOP");
    const res = await a.call("GET", `/api/v1/sessions/${id}/proxy/sync`);
    expect(res.status).toBe(504);
    expect(res.body.error).toBe("gateway_timeout");
    const after = await a.get(id);
    expect(after.body.state).toBe("failed");
    expect(after.body.transitions.at(-1)).toMatchObject({ from: "running", to: "failed", trigger: "health_check_failed" });
    expect(after.body.service_credentials.at(-1)).toMatchObject({ state: "invalidated", invalidation_cause: "health_check_failed" });
    // The hung process is ended after the answer (SIGTERM, then SIGKILL after stop_timeout_secs), and reaped.
    await until(() => !processExists(running.pid!), "the hung daemon to be ended");
  }, 60_000);

  test("a daemon whose port closed: the proxy answers 502", async () => {
    const gw = await gateway();
    gw.ctx.sessions.daemonCommand = FAKE_DAEMON_COMMAND;
    const a = api(gw);
    const id = (await a.create((await registerProject(gw)).projectId)).body.id;
    const running = await a.settled(id);
    pids.push(running.pid!);
    expect((await a.call("POST", `/api/v1/sessions/${id}/proxy/close-listener`)).body).toEqual({ closing: true });
    await until(async () => (await a.call("GET", `/api/v1/sessions/${id}/proxy/anything`)).status === 502, "the proxy to report the daemon unreachable");
    const res = await a.call("GET", `/api/v1/sessions/${id}/proxy/anything`);
    expect(res.body.error).toBe("bad_gateway");
  }, 60_000);
});

describe("gateway restart", () => {
  test("a healthy daemon is re-adopted, a dead one is failed (cause reconciliation), and nothing is left behind", async () => {
    const first = await gateway();
    const dataDir = first.ctx.dataDir;
    let a = api(first);
    const keep = (await a.create((await registerProject(first)).projectId)).body.id;
    const lose = (await a.create((await registerProject(first)).projectId)).body.id;
    const kept = await a.settled(keep);
    const lost = await a.settled(lose);
    expect([kept.state, lost.state]).toEqual(["running", "running"]);
    pids.push(kept.pid!, lost.pid!);
    await first.stop();
    // Daemons outlive the gateway; one dies while the gateway is down.
    process.kill(kept.pid!, 0);
    process.kill(lost.pid!, "SIGKILL");
    await until(() => !processRunning(lost.pid!), "the killed daemon to exit");

    const second = await gateway(dataDir);
    second.ctx.sessions.daemonCommand = DAEMON_COMMAND;
    a = api({ url: second.url, token: second.token });
    const adopted = (await a.get(keep)).body;
    expect(adopted).toMatchObject({ state: "running", pid: kept.pid, daemon_epoch: kept.daemon_epoch });
    expect((await a.call("GET", `/api/v1/sessions/${keep}/proxy/sync`)).body.daemon_epoch).toBe(kept.daemon_epoch);
    const failed = (await a.get(lose)).body;
    expect(failed.state).toBe("failed");
    expect(failed.transitions.at(-1)).toMatchObject({ from: "running", to: "failed", trigger: "reconciliation" });
    expect(failed.service_credentials.at(-1)).toMatchObject({ state: "invalidated", invalidation_cause: "reconciliation" });

    // The re-adopted daemon is watched too: its death now fails the session.
    process.kill(kept.pid!, "SIGKILL");
    await until(async () => (await a.call("GET", "/api/v1/sessions")).body.find((s: any) => s.id === keep).state === "failed", "the adopted daemon's exit to be noticed");
    expect((await a.get(keep)).body.service_credentials.at(-1)).toMatchObject({ invalidation_cause: "watcher_daemon_exit" });
  }, 90_000);
});

describe("process identity", () => {
  test("a recorded pid that now names another process is never signalled: the session fails, the process lives", async () => {
    const first = await gateway();
    const dataDir = first.ctx.dataDir;
    const { projectId } = await registerProject(first);
    // An unrelated process that happens to have the pid a daemon once had (its start time differs).
    const bystander = Bun.spawn(["sleep", "60"]);
    pids.push(bystander.pid);
    const now = first.clock.now();
    const id = "ses_0000000000000000000000pid0";
    await sqlAll(first.ctx.db, "INSERT INTO sessions (id, project_id, launch_mode, state, pid, pid_start_ticks, port, created_at, updated_at) VALUES (?, ?, 'project_direct', 'running', ?, '1', 1, ?, ?)", [id, projectId, bystander.pid, now, now]);
    await first.stop();

    const second = await gateway(dataDir);
    const record = (await api(second).get(id)).body;
    expect(record.state).toBe("failed");
    expect(record.transitions.at(-1)).toMatchObject({ to: "failed", trigger: "reconciliation", detail: "the daemon process is gone" });
    expect(bystander.killed).toBe(false);
    expect(processExists(bystander.pid)).toBe(true);
    // Deleting it does not touch the bystander either.
    expect((await api(second).call("DELETE", `/api/v1/sessions/${id}`)).status).toBe(204);
    expect(processExists(bystander.pid)).toBe(true);
    bystander.kill();
  }, 60_000);
});
