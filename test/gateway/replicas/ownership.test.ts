// Sessions and projects have an owner host (issue 38 item 4, decisions-gateway 60): two gateway replicas
// (host_name a and b) on one PostgreSQL database, sessions on the scripted stand-in daemon. A replica reads
// another host's sessions but never health-checks, fails, reconciles, stops, deletes or proxies them; it
// answers 409 owned_by_other_host naming the owner. The owner's own reconciliation is unchanged.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { freshPgDatabase, PG_MISSING, pgTest } from "../../helpers/postgres.ts";
import { processExists } from "../../helpers/processes.ts";
import { startTestGateway, TEST_DB, type TestGateway } from "../helpers.ts";

const FAKE_DAEMON = [process.execPath, join(import.meta.dir, "..", "sessions", "fake-daemon.ts")];
const FAST = "daemon_sessions:\n  stop_timeout_secs: 2\n  proxy_connect_timeout_secs: 2\n";

type Call = { status: number; body: any };

async function call(gw: { url: string }, token: string, method: string, path: string, body?: unknown): Promise<Call> {
  const res = await fetch(`${gw.url}${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json: any = text;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: json };
}

/** A config registered over HTTP and a project directory (with a gateway.yaml naming one hook) registered on `gw`. */
async function registerProject(gw: TestGateway, token: string): Promise<{ id: string; path: string }> {
  const name = `cfg-${randomBytes(3).toString("hex")}`;
  const config = await call(gw, token, "POST", "/api/v1/configurations", { name, config_format: "yaml", config_content: "default_permission_matcher: bypass\n" });
  expect(config.status).toBe(201);
  const path = join(mkdtempSync(join(tmpdir(), "gw-owner-proj-")), "proj");
  mkdirSync(join(path, ".agent"), { recursive: true });
  writeFileSync(join(path, ".agent", "gateway.yaml"), "hooks:\n  review: {}\n");
  const project = await call(gw, token, "POST", "/api/v1/projects", { path, config_name: name });
  expect(project.status).toBe(201);
  return { id: project.body.id, path };
}

async function until(what: string, cond: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await cond()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.skipIf(TEST_DB === "pg")("owner host on SQLite", () => {
  test("a SQLite gateway takes every row on at start, whatever host name wrote it, except joined host agents' rows: a renamed host keeps its projects and sessions", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "gw-owner-sqlite-")), "data");
    const first = await startTestGateway(`host_name: before\n${FAST}`, { dataDir });
    first.ctx.sessions.daemonCommand = FAKE_DAEMON;
    const token = (await first.ctx.pats.create((await first.ctx.principals.create("ops")).id, "t")).token;
    const project = await registerProject(first, token);
    const older = await registerProject(first, token);
    expect((await call(first, token, "GET", `/api/v1/projects/${project.id}`)).body.owner_host).toBe("before");
    // A row from before owners were recorded.
    first.ctx.sqlite!.run("UPDATE projects SET owner_host = NULL WHERE id = ?", [older.id]);
    // A joined host agent's project and session: they stay that host's.
    const joined = await registerProject(first, token);
    first.ctx.sqlite!.run("INSERT INTO hosts (name, first_seen_at, last_seen_at, online_until, protocol) VALUES ('build-1', 0, 0, 0, 1)");
    first.ctx.sqlite!.run("UPDATE projects SET owner_host = 'build-1' WHERE id = ?", [joined.id]);
    const joinedSession = "ses_0000000000000000000000build";
    first.ctx.sqlite!.run(
      "INSERT INTO sessions (id, project_id, state, launch_mode, owner_host, created_at, updated_at) VALUES (?, ?, 'stopped', 'project_direct', 'build-1', 0, 0)",
      [joinedSession, joined.id],
    );
    await first.stop();
    const renamed = await startTestGateway(`host_name: after\n${FAST}`, { dataDir });
    renamed.ctx.sessions.daemonCommand = FAKE_DAEMON;
    try {
      for (const p of [project, older]) {
        const read = await call(renamed, token, "GET", `/api/v1/projects/${p.id}`);
        expect(read.body.owner_host).toBe("after");
        expect(read.body.hook_status).toEqual({ has_gateway_yaml: true, configured_hooks: ["review"] });
      }
      expect((await call(renamed, token, "GET", `/api/v1/projects/${joined.id}`)).body.owner_host).toBe("build-1");
      expect(renamed.ctx.sqlite!.query("SELECT owner_host FROM sessions WHERE id = ?").get(joinedSession)).toEqual({ owner_host: "build-1" });
      const created = await call(renamed, token, "POST", "/api/v1/sessions", { project_id: project.id, launch_mode: "project_direct" });
      expect(created.status).toBe(201);
      expect(created.body.owner_host).toBe("after");
      await until("the session to run", async () => (await call(renamed, token, "GET", `/api/v1/sessions/${created.body.id}`)).body.state === "running");
      expect((await call(renamed, token, "DELETE", `/api/v1/sessions/${created.body.id}`)).status).toBe(204);
    } finally {
      await renamed.stop();
    }
  }, 60_000);
});

describe("two replicas on one PostgreSQL database", () => {
  let database: string;
  let pepperFile: string;
  let a: TestGateway;
  let b: TestGateway;
  let aData: string;
  let token: string;
  let project: { id: string; path: string };
  const pids = new Set<number>();

  const replica = async (host: string, dataDir?: string) => {
    const gw = await startTestGateway(`host_name: ${host}\n${FAST}`, { database, auth: `    pepper_file: ${pepperFile}\n`, ...(dataDir ? { dataDir } : {}) });
    gw.ctx.sessions.daemonCommand = FAKE_DAEMON;
    return gw;
  };
  const session = async (gw: TestGateway, id: string) => (await call(gw, token, "GET", `/api/v1/sessions/${id}`)).body;
  const createOnA = async () => {
    const created = await call(a, token, "POST", "/api/v1/sessions", { project_id: project.id, launch_mode: "project_direct" });
    expect(created.status).toBe(201);
    await until("the session to run on a", async () => (await session(a, created.body.id)).state === "running");
    const view = await session(a, created.body.id);
    pids.add(view.pid);
    return view;
  };

  beforeAll(async () => {
    if (PG_MISSING) return;
    database = await freshPgDatabase();
    const dir = mkdtempSync(join(tmpdir(), "gw-owner-"));
    pepperFile = join(dir, "pepper");
    writeFileSync(pepperFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
    aData = join(dir, "a-data");
    a = await replica("a", aData);
    token = (await a.ctx.pats.create((await a.ctx.principals.create("ops")).id, "t")).token;
    project = await registerProject(a, token);
    // b starts before the sessions exist: its start sees none of them, so what b does later is its requests' doing.
    b = await replica("b");
  }, 60_000);

  afterAll(async () => {
    for (const gw of [a, b]) await gw?.stop();
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });

  pgTest("a project registered on a is a's; b lists it with its owner and does not read its directory", async () => {
    const onA = await call(a, token, "GET", `/api/v1/projects/${project.id}`);
    expect(onA.body).toMatchObject({ owner_host: "a", hook_status: { has_gateway_yaml: true, configured_hooks: ["review"] } });
    const onB = await call(b, token, "GET", "/api/v1/projects");
    expect(onB.status).toBe(200);
    expect(onB.body.find((p: { id: string }) => p.id === project.id)).toMatchObject({ owner_host: "a", hook_status: { has_gateway_yaml: false, configured_hooks: [] } });
  });

  pgTest("b reads a's running session as running, without failing it or invalidating its daemon's credential; a's proxy still answers", async () => {
    const s = await createOnA();
    expect(s.owner_host).toBe("a");
    for (let i = 0; i < 3; i++) {
      const onB = await call(b, token, "GET", `/api/v1/sessions/${s.id}`);
      expect(onB.status).toBe(200);
      expect(onB.body).toMatchObject({ state: "running", owner_host: "a", pid: s.pid, port: s.port });
    }
    expect((await call(b, token, "GET", "/api/v1/sessions")).body.find((x: { id: string }) => x.id === s.id)).toMatchObject({ state: "running", owner_host: "a" });
    const after = await session(a, s.id);
    expect(after.state).toBe("running");
    expect(after.transitions.map((t: { to: string }) => t.to)).toEqual(["starting", "running"]);
    expect(after.service_credentials.map((c: { state: string }) => c.state)).not.toContain("invalidated");
    expect((await call(a, token, "GET", `/api/v1/sessions/${s.id}/proxy/echo`)).status).toBe(200);
  });

  pgTest("b answers what needs the owner with 409 owned_by_other_host naming host a: proxy (SSE too), stop, resume, delete, a new session of a's project", async () => {
    const s = await createOnA();
    const refused = (r: Call) => {
      expect(r.status).toBe(409);
      expect(r.body.error).toBe("owned_by_other_host");
      expect(r.body.message).toContain("gateway host a;");
    };
    refused(await call(b, token, "GET", `/api/v1/sessions/${s.id}/proxy/echo`));
    refused(await call(b, token, "POST", `/api/v1/sessions/${s.id}/proxy/prompt`, { text: "hi" }));
    refused(await call(b, token, "GET", `/api/v1/sessions/${s.id}/proxy/sse`));
    refused(await call(b, token, "POST", `/api/v1/sessions/${s.id}/stop`));
    refused(await call(b, token, "POST", `/api/v1/sessions/${s.id}/resume`));
    refused(await call(b, token, "DELETE", `/api/v1/sessions/${s.id}`));
    const create = await call(b, token, "POST", "/api/v1/sessions", { project_id: project.id, launch_mode: "project_direct" });
    refused(create);
    expect(create.body.message).toContain(`project ${project.id}`);
    // Nothing of it reached a's session: still running, its daemon alive, its proxy answering.
    const after = await session(a, s.id);
    expect(after).toMatchObject({ state: "running", pid: s.pid });
    expect(processExists(s.pid)).toBe(true);
    expect((await call(a, token, "GET", `/api/v1/sessions/${s.id}/proxy/echo`)).status).toBe(200);
    // The owner still can.
    expect((await call(a, token, "POST", `/api/v1/sessions/${s.id}/stop`)).body.state).toBe("stopped");
    expect((await call(a, token, "DELETE", `/api/v1/sessions/${s.id}`)).status).toBe(204);
  });

  pgTest("b's start leaves a's sessions alone even when a's daemon is gone; a's restart re-adopts its live daemon and fails the dead one, as on one host", async () => {
    const live = await createOnA();
    const dead = await createOnA();
    // a goes down (its daemons keep running), then one of its daemons dies while no gateway of a watches it.
    await a.stop();
    process.kill(dead.pid, "SIGKILL");
    await until("the daemon to die", async () => !processExists(dead.pid));
    // A project row from before owners were recorded: the first replica to start takes it.
    await b.ctx.db.update(b.ctx.db.t.projects).set({ ownerHost: null }).where(eq(b.ctx.db.t.projects.id, project.id));
    await b.stop();
    b = await replica("b");
    for (const s of [live, dead]) {
      const onB = await session(b, s.id);
      expect(onB).toMatchObject({ state: "running", owner_host: "a", pid: s.pid });
      expect(onB.service_credentials.map((c: { state: string }) => c.state)).not.toContain("invalidated");
    }
    expect((await call(b, token, "GET", `/api/v1/projects/${project.id}`)).body.owner_host).toBe("b");
    // Back to a: the project is b's now, so a no longer starts its sessions; its own sessions are still its.
    await b.ctx.db.update(b.ctx.db.t.projects).set({ ownerHost: "a" }).where(eq(b.ctx.db.t.projects.id, project.id));
    a = await replica("a", aData);
    expect((await call(a, token, "GET", `/api/v1/sessions/${live.id}/proxy/echo`)).status).toBe(200);
    const failed = await session(a, dead.id);
    expect(failed.state).toBe("failed");
    expect(failed.transitions.at(-1)).toMatchObject({ from: "running", to: "failed", trigger: "reconciliation", detail: "the daemon process is gone" });
    expect(failed.service_credentials.at(-1)).toMatchObject({ state: "invalidated", invalidation_cause: "reconciliation" });
    for (const s of [live, dead]) expect((await call(a, token, "DELETE", `/api/v1/sessions/${s.id}`)).status).toBe(204);
    expect(processExists(live.pid)).toBe(false);
  }, 60_000);
});
