// Replicas share the configuration registry through the database (issue 38, decisions-gateway 69): two
// gateways (host_name a and b, each its own data dir) on one PostgreSQL database. What is created, updated
// or deleted through a is what b serves, launches (the session's launch-config/ files, on the scripted
// stand-in daemon) and keeps in its own data dir; a row from before the content was stored is read from the
// files of the host that has them and stored for every replica.
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionsDir } from "../../../src/gateway/sessions/create-session.ts";
import { freshPgDatabase, PG_MISSING, pgTest } from "../../helpers/postgres.ts";
import { sqlAll, sqlGet, startTestGateway, type TestGateway } from "../helpers.ts";
import { TOML_CONFIG, YAML_CONFIG } from "../registry/helpers.ts";

const FAKE_DAEMON = [process.execPath, join(import.meta.dir, "..", "sessions", "fake-daemon.ts")];
const FAST = "daemon_sessions:\n  stop_timeout_secs: 2\n  proxy_connect_timeout_secs: 2\n";

type Call = { status: number; body: any };

describe("configurations on two replicas", () => {
  let a: TestGateway;
  let b: TestGateway;
  let token: string;

  const call = async (gw: TestGateway, method: string, path: string, body?: unknown): Promise<Call> => {
    const res = await fetch(`${gw.url}${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const dirOn = (gw: TestGateway, name: string) => join(gw.ctx.dataDir, "configurations", name);
  const stored = async (name: string) => (await sqlGet(a.ctx.db, "SELECT content, pre_run_script AS script FROM configurations WHERE name = ?", [name])) as { content: string | null; script: string | null } | null;

  /** A session of `projectId` launched on b; its launch-config/ directory as the daemon got it, then deleted. */
  const launchOnB = async (projectId: string): Promise<Record<string, string>> => {
    const created = await call(b, "POST", "/api/v1/sessions", { project_id: projectId, launch_mode: "project_direct" });
    expect(created.status).toBe(201);
    let state = created.body.state;
    for (let i = 0; i < 600 && state === "starting"; i++) {
      await Bun.sleep(50);
      state = (await call(b, "GET", `/api/v1/sessions/${created.body.id}`)).body.state;
    }
    expect(state).toBe("running");
    const dir = join(sessionsDir(b.ctx.dataDir), created.body.id, "launch-config");
    const files = Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f), "utf8")]));
    expect((await call(b, "DELETE", `/api/v1/sessions/${created.body.id}`)).status).toBe(204);
    return files;
  };

  beforeAll(async () => {
    if (PG_MISSING) return;
    const database = await freshPgDatabase();
    const pepperFile = join(mkdtempSync(join(tmpdir(), "gw-cfg-replicas-")), "pepper");
    writeFileSync(pepperFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
    const replica = async (host: string) => {
      const gw = await startTestGateway(`host_name: ${host}\n${FAST}`, { database, auth: `    pepper_file: ${pepperFile}\n` });
      gw.ctx.sessions.daemonCommand = FAKE_DAEMON;
      return gw;
    };
    a = await replica("a");
    b = await replica("b");
    token = (await a.ctx.pats.create((await a.ctx.principals.create("ops")).id, "t")).token;
  }, 60_000);

  afterAll(async () => {
    for (const gw of [a, b]) await gw?.stop();
  });

  pgTest("created on a: b's detail returns the content and the script, and b's data dir gets the files", async () => {
    expect((await call(a, "POST", "/api/v1/configurations", { name: "made-on-a", config_format: "yaml", config_content: YAML_CONFIG, pre_run_script: "echo a\n" })).status).toBe(201);
    expect(existsSync(dirOn(b, "made-on-a"))).toBe(false);
    const onB = await call(b, "GET", "/api/v1/configurations/made-on-a");
    expect(onB.status).toBe(200);
    expect(onB.body).toMatchObject({ name: "made-on-a", format: "yaml", config_content: YAML_CONFIG, pre_run_script: "echo a\n", has_pre_run_script: true });
    expect(readdirSync(dirOn(b, "made-on-a")).sort()).toEqual(["config.yaml", "pre-run.sh"]);
    expect(readFileSync(join(dirOn(b, "made-on-a"), "config.yaml"), "utf8")).toBe(YAML_CONFIG);
  });

  pgTest("updated on a (content, format, a script added then emptied): b serves and launches each new version", async () => {
    expect((await call(a, "POST", "/api/v1/configurations", { name: "moving", config_format: "yaml", config_content: YAML_CONFIG })).status).toBe(201);
    const path = mkdtempSync(join(tmpdir(), "gw-cfg-replicas-proj-"));
    const project = await call(b, "POST", "/api/v1/projects", { path, config_name: "moving" });
    expect([project.status, project.body.owner_host]).toEqual([201, "b"]);
    expect(await launchOnB(project.body.id)).toEqual({ "config.yaml": YAML_CONFIG });

    // b has the yaml file now; a changes the format and adds a script.
    const toml = await call(a, "PUT", "/api/v1/configurations/moving", { config_format: "toml", config_content: TOML_CONFIG, pre_run_script: "echo prepared > prepared.txt\n" });
    expect([toml.status, toml.body.format]).toEqual([200, "toml"]);
    expect((await call(b, "GET", "/api/v1/configurations/moving")).body).toMatchObject({ format: "toml", config_content: TOML_CONFIG, pre_run_script: "echo prepared > prepared.txt\n" });
    expect(readdirSync(dirOn(b, "moving")).sort()).toEqual(["config.toml", "pre-run.sh"]);
    expect(await launchOnB(project.body.id)).toEqual({ "config.toml": TOML_CONFIG, "pre-run.sh": "echo prepared > prepared.txt\n" });
    expect(readFileSync(join(path, "prepared.txt"), "utf8")).toBe("prepared\n");

    // Content only, then the script emptied: each through a, each seen by b's next launch.
    const bypass = 'default_permission_matcher = "bypass"\n';
    expect((await call(a, "PUT", "/api/v1/configurations/moving", { config_content: bypass })).status).toBe(200);
    expect(await launchOnB(project.body.id)).toEqual({ "config.toml": bypass, "pre-run.sh": "echo prepared > prepared.txt\n" });
    expect((await call(a, "PUT", "/api/v1/configurations/moving", { pre_run_script: "" })).body.has_pre_run_script).toBe(false);
    expect(await launchOnB(project.body.id)).toEqual({ "config.toml": bypass });
    expect(readdirSync(dirOn(b, "moving"))).toEqual(["config.toml"]);
    expect((await call(b, "GET", "/api/v1/configurations/moving")).body).toMatchObject({ config_content: bypass, pre_run_script: null, has_pre_run_script: false });
    expect(await stored("moving")).toEqual({ content: bypass, script: null });

    // An update through b of what a created keeps the fields it does not name.
    expect((await call(b, "PUT", "/api/v1/configurations/moving", { pre_run_script: "echo b\n" })).status).toBe(200);
    expect((await call(a, "GET", "/api/v1/configurations/moving")).body).toMatchObject({ format: "toml", config_content: bypass, pre_run_script: "echo b\n" });
    expect(readFileSync(join(dirOn(a, "moving"), "pre-run.sh"), "utf8")).toBe("echo b\n");
  }, 60_000);

  pgTest("deleted on a: 404 on b, b's files go at its next read of the name or its next list", async () => {
    for (const name of ["gone-read", "gone-list"]) {
      expect((await call(a, "POST", "/api/v1/configurations", { name, config_format: "yaml", config_content: YAML_CONFIG })).status).toBe(201);
      expect((await call(b, "GET", `/api/v1/configurations/${name}`)).status).toBe(200);
      expect(existsSync(dirOn(b, name))).toBe(true);
      expect((await call(a, "DELETE", `/api/v1/configurations/${name}`)).status).toBe(204);
    }
    const read = await call(b, "GET", "/api/v1/configurations/gone-read");
    expect([read.status, read.body.error]).toEqual([404, "not_found"]);
    expect(existsSync(dirOn(b, "gone-read"))).toBe(false);
    const list = await call(b, "GET", "/api/v1/configurations");
    expect(list.body.map((c: { name: string }) => c.name)).not.toContain("gone-list");
    expect(existsSync(dirOn(b, "gone-list"))).toBe(false);
    expect(existsSync(dirOn(b, "moving"))).toBe(true);

    // Created again on a with other content: b serves the new one, not its old copy.
    mkdirSync(dirOn(b, "again"), { recursive: true });
    writeFileSync(join(dirOn(b, "again"), "config.yaml"), "stale: true\n");
    expect((await call(a, "POST", "/api/v1/configurations", { name: "again", config_format: "toml", config_content: TOML_CONFIG })).status).toBe(201);
    expect((await call(b, "GET", "/api/v1/configurations/again")).body.config_content).toBe(TOML_CONFIG);
    expect(readdirSync(dirOn(b, "again"))).toEqual(["config.toml"]);
  });

  pgTest("a row from before (content null): read from the files of the host that has them (at its read or list), stored, then served everywhere", async () => {
    const dir = dirOn(a, "old-style");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.yaml"), YAML_CONFIG);
    writeFileSync(join(dir, "pre-run.sh"), "echo old\n");
    const now = a.clock.now();
    await sqlAll(a.ctx.db, "INSERT INTO configurations (name, format, has_pre_run_script, created_at, updated_at) VALUES (?, 'yaml', ?, ?, ?)", ["old-style", true, now, now]);
    expect(await stored("old-style")).toEqual({ content: null, script: null });

    // b has no files for it: a clear 503 saying where to read it, and nothing stored.
    const early = await call(b, "GET", "/api/v1/configurations/old-style");
    expect(early.status).toBe(503);
    expect(early.body.message).toContain("read it once through the gateway whose data directory has them");
    // Nor can b update a part of it: the rest is only in a's files.
    const partial = await call(b, "PUT", "/api/v1/configurations/old-style", { pre_run_script: "echo b\n" });
    expect([partial.status, partial.body.message]).toEqual([503, early.body.message]);
    expect(await stored("old-style")).toEqual({ content: null, script: null });

    const onA = await call(a, "GET", "/api/v1/configurations/old-style");
    expect([onA.status, onA.body.config_content, onA.body.pre_run_script]).toEqual([200, YAML_CONFIG, "echo old\n"]);
    expect(await stored("old-style")).toEqual({ content: YAML_CONFIG, script: "echo old\n" });
    expect((await call(b, "GET", "/api/v1/configurations/old-style")).body).toMatchObject({ config_content: YAML_CONFIG, pre_run_script: "echo old\n" });
    expect(readFileSync(join(dirOn(b, "old-style"), "pre-run.sh"), "utf8")).toBe("echo old\n");

    // A list on the host with the files stores every such row (an imported SQLite gateway's, all at once).
    mkdirSync(dirOn(a, "old-listed"), { recursive: true });
    writeFileSync(join(dirOn(a, "old-listed"), "config.toml"), TOML_CONFIG);
    await sqlAll(a.ctx.db, "INSERT INTO configurations (name, format, has_pre_run_script, created_at, updated_at) VALUES (?, 'toml', ?, ?, ?)", ["old-listed", false, now, now]);
    expect((await call(b, "GET", "/api/v1/configurations")).body.map((c: { name: string }) => c.name)).toContain("old-listed");
    expect(await stored("old-listed")).toEqual({ content: null, script: null });
    expect((await call(a, "GET", "/api/v1/configurations")).status).toBe(200);
    expect(await stored("old-listed")).toEqual({ content: TOML_CONFIG, script: null });
    expect((await call(b, "GET", "/api/v1/configurations/old-listed")).body.config_content).toBe(TOML_CONFIG);
  });
});
