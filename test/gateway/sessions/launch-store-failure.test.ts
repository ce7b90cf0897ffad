// A store that fails once the session is running (a host agent whose front went away between the running
// state and the launch's last write, or before it answered the running state itself) leaves the daemon
// running: the session is running on it and the proxy reaches it.
import { afterAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { SessionSupervisor } from "../../../src/gateway/sessions/supervisor.ts";
import type { SessionStore } from "../../../src/gateway/sessions/store.ts";
import { runningWithArg } from "../../helpers/processes.ts";
import { FAKE_DAEMON_COMMAND, registerProject, sessionGateway, stopGateway, until } from "./helpers.ts";

const gw = await sessionGateway();
afterAll(() => stopGateway(gw));

test("a store failing after the running state does not end the daemon", async () => {
  const { projectId } = await registerProject(gw);
  const db = gw.ctx.sessions.store;
  let failed = 0;
  // The database store, except that clearing the bootstrap file fails once, as a lost front does.
  const store: SessionStore = Object.assign(Object.create(db), {
    update: async (id: string, patch: Parameters<SessionStore["update"]>[1]) => {
      if ("bootstrapFile" in patch && patch.bootstrapFile === null && failed++ === 0) throw new Error("the connection to front-a closed (1006)");
      return db.update(id, patch);
    },
  });
  const supervisor = new SessionSupervisor(gw.ctx, store);
  supervisor.daemonCommand = FAKE_DAEMON_COMMAND;
  try {
    const view = await supervisor.create(projectId, "project_direct");
    await until(() => failed > 0, "the failing write");
    // The launch is over (its last write failed); the daemon stays the session's.
    await until(async () => (await supervisor.proxyTarget(view.id)).ok, "the live daemon");
    const row = (await db.session(view.id))!;
    expect(row).toMatchObject({ state: "running", port: expect.any(Number) });
    expect(runningWithArg(row.sessionDir!)).toEqual([row.pid!]);
    expect(existsSync(row.bootstrapFile!)).toBe(false);
    await supervisor.remove(view.id);
  } finally {
    supervisor.close();
  }
});

test("a running state made by the store whose answer is lost does not end the daemon", async () => {
  const { projectId } = await registerProject(gw);
  const db = gw.ctx.sessions.store;
  let lost = 0;
  // The database store, except that the move to running is made and its answer lost, as when the front's connection closes.
  const store: SessionStore = Object.assign(Object.create(db), {
    transition: async (...args: Parameters<SessionStore["transition"]>) => {
      const moved = await db.transition(...args);
      if (args[2] === "running" && lost++ === 0) throw new Error("the connection to front-a closed (1006)");
      return moved;
    },
  });
  const supervisor = new SessionSupervisor(gw.ctx, store);
  supervisor.daemonCommand = FAKE_DAEMON_COMMAND;
  try {
    const view = await supervisor.create(projectId, "project_direct");
    await until(() => lost > 0, "the lost answer");
    await until(async () => (await supervisor.proxyTarget(view.id)).ok, "the live daemon");
    const row = (await db.session(view.id))!;
    expect(row).toMatchObject({ state: "running", port: expect.any(Number) });
    expect(runningWithArg(row.sessionDir!)).toEqual([row.pid!]);
    await supervisor.remove(view.id);
  } finally {
    supervisor.close();
  }
});

test("a daemon exit that cannot be recorded (the store is down) is logged, not a crash; the next read settles the session", async () => {
  const { projectId } = await registerProject(gw);
  const db = gw.ctx.sessions.store;
  let down = false;
  // The database store, unreachable while `down`.
  const store: SessionStore = new Proxy(db, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (down) return Promise.reject(new Error("no gateway front reachable"));
        return value.apply(target, args);
      };
    },
  });
  const events: { event: string; fields: Record<string, unknown> }[] = [];
  const logger = { info() {}, warn() {}, error() {}, event: (_: string, event: string, fields: Record<string, unknown>) => void events.push({ event, fields }) };
  const supervisor = new SessionSupervisor({ ...gw.ctx, logger }, store);
  supervisor.daemonCommand = FAKE_DAEMON_COMMAND;
  try {
    const view = await supervisor.create(projectId, "project_direct");
    await until(async () => (await supervisor.proxyTarget(view.id)).ok, "the live daemon");
    const row = (await db.session(view.id))!;
    down = true;
    process.kill(row.pid!, "SIGKILL");
    await until(() => events.some((e) => e.event === "session.exit_unrecorded"), "the unrecorded exit");
    expect(events.find((e) => e.event === "session.exit_unrecorded")!.fields).toEqual({ session: view.id, error: "no gateway front reachable" });
    expect((await db.session(view.id))!.state).toBe("running");
    down = false;
    expect((await supervisor.get(view.id)).state).toBe("failed");
    await supervisor.remove(view.id);
  } finally {
    supervisor.close();
  }
});
