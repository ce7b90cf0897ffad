// A real gateway whose sessions run real `agent daemon` processes (bun src/cli/main.ts) on the scripted
// `test` provider, with registered configurations and projects seeded the way the registry stores them
// (files under $DATA_ROOT/configurations/<name>/ plus the database rows).
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestGateway, type TestGateway, sqlAll } from "../helpers.ts";
import type { SessionView } from "../../../src/gateway/sessions/registry.ts";

export const MAIN = join(import.meta.dir, "..", "..", "..", "src", "cli", "main.ts");
export const DAEMON_COMMAND = [process.execPath, MAIN];
/** The scripted stand-in daemon (fake-daemon.ts): faults and answers on request. */
export const FAKE_DAEMON_COMMAND = [process.execPath, join(import.meta.dir, "fake-daemon.ts")];

/** Short bounds so that failures show quickly; none of them is asserted on. */
export const FAST = "daemon_sessions:\n  stop_timeout_secs: 2\n  health_check_timeout_secs: 30\n  spawn_discover_timeout_secs: 30\n  proxy_connect_timeout_secs: 2\n";

export async function sessionGateway(extra = "", dataDir?: string): Promise<TestGateway & { token: string }> {
  const gw = await startTestGateway(FAST + extra, dataDir ? { dataDir } : {});
  gw.ctx.sessions.daemonCommand = DAEMON_COMMAND;
  return Object.assign(gw, { token: await machineToken(gw) });
}

/**
 * Ends the gateway and every daemon its database still records (daemons outlive a gateway by design, so a
 * failed test would otherwise leave them running).
 */
export async function stopGateway(gw: TestGateway): Promise<void> {
  let pids: { pid: number }[] = [];
  try {
    pids = (await sqlAll(gw.ctx.db, "SELECT pid FROM sessions WHERE pid IS NOT NULL")) as { pid: number }[];
  } catch {
    // already stopped (its database is closed)
  }
  await gw.stop();
  for (const { pid } of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Deletes every session the gateway lists (their daemons end, their worktrees and directories go). */
export async function deleteSessions(gw: { url: string; token: string }): Promise<void> {
  const a = api(gw);
  for (const s of (await a.call("GET", "/api/v1/sessions")).body ?? []) await a.call("DELETE", `/api/v1/sessions/${s.id}`);
}

/** Polls `cond` every 50 ms, 600 times at most. */
export async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await cond()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function machineToken(gw: TestGateway): Promise<string> {
  const name = `ops-${Math.random().toString(36).slice(2, 8)}`;
  const p = await gw.ctx.principals.create(name);
  return (await gw.ctx.pats.create(p.id, "tests")).token;
}

let n = 0;
/** A git project with one commit, a configuration on the scripted provider, both registered. */
export async function registerProject(gw: TestGateway, options: { script?: string; preRun?: string; config?: string } = {}): Promise<{ projectId: string; path: string; configName: string }> {
  n++;
  const base = mkdtempSync(join(tmpdir(), "gw-sess-proj-"));
  const path = join(base, "proj");
  mkdirSync(path);
  const script = join(base, "script.yaml");
  writeFileSync(script, options.script ?? "responses:\n  - text: hello from the daemon\n  - text: second answer\n");
  writeFileSync(join(path, "README.md"), "project\n");
  const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: path, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "init");
  const configName = `cfg-${n}-${Math.random().toString(36).slice(2, 6)}`;
  const dir = join(gw.ctx.dataDir, "configurations", configName);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.yaml"), options.config ?? `providers:\n  offline: { kind: { type: catalog, name: test }, url: ${script} }\ndefault_permission_matcher: bypass\n`);
  if (options.preRun !== undefined) writeFileSync(join(dir, "pre-run.sh"), options.preRun);
  const now = gw.clock.now();
  await sqlAll(gw.ctx.db, "INSERT INTO configurations (name, format, has_pre_run_script, created_at, updated_at) VALUES (?, 'yaml', ?, ?, ?)", [configName, options.preRun !== undefined, now, now]);
  const projectId = Math.random().toString(16).slice(2, 10).padEnd(8, "0");
  await sqlAll(gw.ctx.db, "INSERT INTO projects (id, path, config_name, registered_at, updated_at) VALUES (?, ?, ?, ?, ?)", [projectId, path, configName, now, now]);
  return { projectId, path, configName };
}

export function api(gw: { url: string; token: string }) {
  const call = async (method: string, path: string, body?: unknown, token = gw.token) => {
    const res = await fetch(`${gw.url}${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, body: json, headers: res.headers };
  };
  return {
    call,
    create: (projectId: string, mode = "project_direct") => call("POST", "/api/v1/sessions", { project_id: projectId, launch_mode: mode }),
    get: (id: string) => call("GET", `/api/v1/sessions/${id}`),
    /** Polls the record until it leaves `starting` (the daemon started or failed). */
    async settled(id: string): Promise<SessionView> {
      for (;;) {
        const r = await call("GET", `/api/v1/sessions/${id}`);
        if (r.status !== 200) throw new Error(`GET session ${id}: ${r.status} ${JSON.stringify(r.body)}`);
        if (r.body.state !== "starting") return r.body as SessionView;
        await Bun.sleep(50);
      }
    },
  };
}
