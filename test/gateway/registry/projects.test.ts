// /api/v1/projects over real HTTP: canonical paths (unique also through a symlink or dot components),
// 8-hex ids, 422/404/409 per the spec's table, hook status derived at query time without ever failing,
// and a fleet change signal after every committed change.
import { sqlAll, sqlGet } from "../helpers.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FleetChange } from "../../../src/gateway/fleet/changes.ts";
import { startRegistryGateway, YAML_CONFIG, type RegistryGateway } from "./helpers.ts";

let r: RegistryGateway;
const changes: FleetChange[] = [];
beforeAll(async () => {
  r = await startRegistryGateway();
  r.gw.ctx.fleetChanges.subscribe((c) => {
    changes.push(c);
  });
  for (const name of ["web", "api"]) expect((await r.call("POST", "/api/v1/configurations", { name, config_content: YAML_CONFIG, config_format: "yaml" })).status).toBe(201);
});
afterAll(() => r.gw.stop());

const register = (path: string, config_name = "web") => r.call("POST", "/api/v1/projects", { path, config_name });
const rowCount = async () => ((await sqlGet(r.gw.ctx.db, "SELECT count(*) AS n FROM projects")) as { n: number }).n;

describe("register, get, list", () => {
  test("201 with an 8-hex id, the canonical path, timestamps and hook status; GET one and list", async () => {
    const dir = r.projectDir();
    changes.length = 0;
    const res = await register(`${dir}/./`);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}$/),
      path: realpathSync(dir),
      config_name: "web",
      registered_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
      owner_host: r.gw.ctx.config.host_name,
      hook_status: { has_gateway_yaml: false, configured_hooks: [] },
    });
    expect(changes).toEqual([{ kind: "project", id: res.body.id }]);
    expect(await r.call("GET", `/api/v1/projects/${res.body.id}`)).toEqual({ status: 200, body: res.body });
    const list = await r.call("GET", "/api/v1/projects");
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(res.body);
  });

  test("409 for the same directory through a symlink or dot components; nothing is added", async () => {
    const dir = r.projectDir();
    const first = await register(dir);
    const link = `${dir}-link`;
    symlinkSync(dir, link);
    const before = await rowCount();
    for (const other of [link, `${dir}/.`, `${dir}/../${dir.split("/").at(-1)}`, `${link}/`]) {
      const res = await register(other);
      expect([other, res.status]).toEqual([other, 409]);
      expect(res.body.message).toContain(`already registered as project ${first.body.id}`);
    }
    expect(await rowCount()).toBe(before);
  });

  test("422 when the directory is missing, not a directory or relative, or the configuration is missing", async () => {
    const dir = r.projectDir();
    writeFileSync(join(dir, "file"), "x");
    const cases: Array<[string, string, string]> = [
      [join(dir, "missing"), "web", "does not exist"],
      [join(dir, "file"), "web", "is not a directory"],
      ["relative/dir", "web", "is not absolute"],
      [dir, "nope", "config_name: no configuration named 'nope'"],
      [dir, "../web", "config_name: invalid configuration name"],
    ];
    const before = await rowCount();
    for (const [path, config, message] of cases) {
      const res = await register(path, config);
      expect([path, config, res.status]).toEqual([path, config, 422]);
      expect(res.body.message).toContain(message);
    }
    expect((await r.call("POST", "/api/v1/projects", { path: dir })).status).toBe(422);
    expect(await rowCount()).toBe(before);
  });

  test("GET of an unknown or malformed id is 404", async () => {
    for (const id of ["0000abcd", "nothex!!", "ABCDEF12"]) expect((await r.call("GET", `/api/v1/projects/${id}`)).status).toBe(404);
    // An encoded separator never reaches the router (request-target.ts).
    expect((await r.call("GET", "/api/v1/projects/..%2Fx")).status).toBe(400);
  });
});

describe("hook status from .agent/gateway.yaml, derived at query time", () => {
  test("hook names from a map or a list; an unparsable file, a directory or a FIFO reads as none", async () => {
    const dir = r.projectDir();
    const id = (await register(dir)).body.id;
    const status = async () => (await r.call("GET", `/api/v1/projects/${id}`)).body.hook_status;
    mkdirSync(join(dir, ".agent"));
    const file = join(dir, ".agent", "gateway.yaml");
    writeFileSync(file, "hooks:\n  pre_session: {run: ./setup.sh}\n  post_session: {run: ./teardown.sh}\n");
    expect(await status()).toEqual({ has_gateway_yaml: true, configured_hooks: ["pre_session", "post_session"] });
    writeFileSync(file, "hooks:\n  - name: lint\n  - format\n  - 3\n");
    expect(await status()).toEqual({ has_gateway_yaml: true, configured_hooks: ["lint", "format"] });
    writeFileSync(file, "other: true\n");
    expect(await status()).toEqual({ has_gateway_yaml: true, configured_hooks: [] });
    writeFileSync(file, "hooks: [unclosed\n");
    expect(await status()).toEqual({ has_gateway_yaml: false, configured_hooks: [] });
    writeFileSync(file, Buffer.from([0x68, 0x6f, 0x6f, 0x6b, 0x73, 0x3a, 0xff, 0xfe]));
    expect(await status()).toEqual({ has_gateway_yaml: false, configured_hooks: [] });
  });

  test("a FIFO or a directory named gateway.yaml does not hang or fail the listing", async () => {
    const fifoDir = r.projectDir();
    mkdirSync(join(fifoDir, ".agent"));
    expect(Bun.spawnSync(["mkfifo", join(fifoDir, ".agent", "gateway.yaml")]).exitCode).toBe(0);
    const dirDir = r.projectDir();
    mkdirSync(join(dirDir, ".agent", "gateway.yaml"), { recursive: true });
    await register(fifoDir);
    await register(dirDir);
    const list = await r.call("GET", "/api/v1/projects");
    expect(list.status).toBe(200);
    for (const d of [fifoDir, dirDir]) expect(list.body.find((p: { path: string }) => p.path === realpathSync(d)).hook_status).toEqual({ has_gateway_yaml: false, configured_hooks: [] });
  });
});

describe("rebind and delete", () => {
  test("PUT rebinds (200, signalled); 404 when the project or the configuration is missing", async () => {
    const id = (await register(r.projectDir())).body.id;
    changes.length = 0;
    r.gw.clock.advance(60_000);
    const res = await r.call("PUT", `/api/v1/projects/${id}`, { config_name: "api" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, config_name: "api", registered_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:01:00.000Z" });
    expect(changes).toEqual([{ kind: "project", id }]);
    expect((await r.call("PUT", "/api/v1/projects/00000000", { config_name: "api" })).status).toBe(404);
    const noConfig = await r.call("PUT", `/api/v1/projects/${id}`, { config_name: "nope" });
    expect([noConfig.status, noConfig.body.message]).toEqual([404, "no configuration named 'nope'"]);
    expect((await r.call("GET", `/api/v1/projects/${id}`)).body.config_name).toBe("api");
  });

  test("DELETE 204 unregisters (signalled); then 404; 409 while a session of the project exists", async () => {
    const dir = r.projectDir();
    const id = (await register(dir)).body.id;
    const now = r.gw.clock.now();
    await sqlAll(r.gw.ctx.db, "INSERT INTO sessions (id, project_id, launch_mode, state, created_at, updated_at) VALUES ('ses_x', ?, 'project_direct', 'stopped', ?, ?)", [id, now, now]);
    const busy = await r.call("DELETE", `/api/v1/projects/${id}`);
    expect([busy.status, busy.body.message]).toEqual([409, `project ${id} has 1 session(s); delete them first`]);
    await sqlAll(r.gw.ctx.db, "DELETE FROM sessions WHERE id = 'ses_x'");
    changes.length = 0;
    expect((await r.call("DELETE", `/api/v1/projects/${id}`)).status).toBe(204);
    expect(changes).toEqual([{ kind: "project", id }]);
    expect((await r.call("GET", `/api/v1/projects/${id}`)).status).toBe(404);
    expect((await r.call("DELETE", `/api/v1/projects/${id}`)).status).toBe(404);
    expect((await register(dir)).status).toBe(201);
  });
});
