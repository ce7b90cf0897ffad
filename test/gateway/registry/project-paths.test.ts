// Directories that cannot be projects (the filesystem root, system directories, the home of the gateway's
// user, the gateway's own data directory and secrets, whichever way the path is written) get a 400 naming
// the path and why, and nothing is registered; the hook status never follows a symlink out of the project.
import { sqlGet } from "../helpers.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { refusedProjectPath } from "../../../src/gateway/registry/project-paths.ts";
import { startRegistryGateway, YAML_CONFIG, type RegistryGateway } from "./helpers.ts";

let r: RegistryGateway;
beforeAll(async () => {
  r = await startRegistryGateway();
  expect((await r.call("POST", "/api/v1/configurations", { name: "web", config_content: YAML_CONFIG, config_format: "yaml" })).status).toBe(201);
});
afterAll(() => r.gw.stop());

const register = (path: string) => r.call("POST", "/api/v1/projects", { path, config_name: "web" });
const rowCount = async () => ((await sqlGet(r.gw.ctx.db, "SELECT count(*) AS n FROM projects")) as { n: number }).n;

describe("POST /api/v1/projects refuses directories that cannot be projects", () => {
  test("the root, system directories, the user's home, the gateway's data directory (inside or containing): 400 naming the path and why", async () => {
    const data = realpathSync(r.gw.ctx.dataDir);
    const home = realpathSync(process.env.HOME!);
    const cases: Array<[string, string]> = [
      ["/", "it is the filesystem root"],
      ["/etc", "it is (or is inside) a system directory"],
      ["/etc/ssh", "it is (or is inside) a system directory"],
      ["/usr/lib", "it is (or is inside) a system directory"],
      ["/proc/self", "it is (or is inside) a system directory"],
      ["/var", "it is a system directory that holds other users' or services' data"],
      ["/tmp", "it is a system directory that holds other users' or services' data"],
      [home, "it is the home directory of the gateway's user"],
      [data, `it is (or is inside) the gateway's data directory ${data}`],
      [join(data, "configurations"), `it is (or is inside) the gateway's data directory ${data}`],
      [join(data, ".."), `it contains the gateway's data directory ${data}`],
    ];
    mkdirSync(join(data, "configurations"), { recursive: true });
    const before = await rowCount();
    for (const [path, why] of cases) {
      const res = await register(path);
      expect([path, res.status, res.body.error]).toEqual([path, 400, "path_not_allowed"]);
      expect(res.body.message).toStartWith(`path: "`);
      expect(res.body.message).toContain(`cannot be a project: ${why}`);
    }
    expect(await rowCount()).toBe(before);
  });

  test("also through a symlink: the message names what was given and what it resolves to", async () => {
    const link = join(mkdtempSync(join(r.gw.dir, "links-")), "etc-link");
    symlinkSync("/etc", link);
    const res = await register(link);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`path: ${JSON.stringify(link)} ("/etc") cannot be a project: it is (or is inside) a system directory`);
  });

  test("a directory that holds a secret of the gateway's (auth.password.pepper_file elsewhere) is refused", async () => {
    const dir = r.projectDir();
    r.gw.ctx.config.auth.password.pepper_file = join(dir, "secrets", "pepper");
    try {
      const res = await register(dir);
      expect([res.status, res.body.message]).toEqual([400, `path: ${JSON.stringify(dir)} cannot be a project: it contains (or is inside) ${join(dir, "secrets", "pepper")}, which the gateway keeps secret`]);
    } finally {
      r.gw.ctx.config.auth.password.pepper_file = undefined;
    }
  });

  test("ordinary project directories are accepted: under the home, under /tmp, under /var/tmp", async () => {
    const underHome = mkdtempSync(join(process.env.HOME!, "proj-"));
    const underVarTmp = mkdtempSync("/var/tmp/gw-proj-");
    try {
      for (const dir of [underHome, r.projectDir(), underVarTmp]) expect([dir, (await register(dir)).status]).toEqual([dir, 201]);
    } finally {
      rmSync(underVarTmp, { recursive: true, force: true });
    }
  });

  test("the decisions, path by path", () => {
    const protect = { dataDir: "/srv/gw/data", secrets: ["/etc/gw/key.pem"], homes: ["/home/ada"] };
    const allowed = ["/usr/src/linux", "/usr/local/src/app", "/var/www/site", "/var/lib/jenkins/workspace/app", "/srv/git/app", "/opt/app", "/home/ada/src/app", "/home/bob", "/mnt/disk/app"];
    for (const path of allowed) expect([path, refusedProjectPath(path, protect)]).toEqual([path, null]);
    const refused = ["/", "/etc", "/boot", "/dev", "/sys", "/run/user/0", "/bin", "/sbin", "/lib", "/lib64", "/lib/modules", "/usr", "/usr/bin", "/usr/src", "/var", "/var/lib", "/var/log/app", "/var/cache/x", "/home", "/root", "/tmp", "/opt", "/srv", "/mnt", "/media", "/home/ada", "/srv/gw", "/srv/gw/data", "/srv/gw/data/x"];
    for (const path of refused) expect([path, refusedProjectPath(path, protect)]).not.toEqual([path, null]);
  });
});

describe("hook status does not follow symlinks out of the project", () => {
  test("a .agent dir or a gateway.yaml linking outside reads as no gateway.yaml; a link inside the project is followed", async () => {
    const outside = mkdtempSync(join(r.gw.dir, "outside-"));
    mkdirSync(join(outside, ".agent"));
    writeFileSync(join(outside, ".agent", "gateway.yaml"), "hooks:\n  leaked_key: {}\n");
    writeFileSync(join(outside, "secret.yaml"), "hooks:\n  secret_key: {}\n");

    const viaDir = r.projectDir();
    symlinkSync(join(outside, ".agent"), join(viaDir, ".agent"));
    const viaFile = r.projectDir();
    mkdirSync(join(viaFile, ".agent"));
    symlinkSync(join(outside, "secret.yaml"), join(viaFile, ".agent", "gateway.yaml"));
    const inside = r.projectDir();
    mkdirSync(join(inside, ".agent"));
    writeFileSync(join(inside, "hooks.yaml"), "hooks:\n  inside_key: {}\n");
    symlinkSync("../hooks.yaml", join(inside, ".agent", "gateway.yaml"));

    const status = async (dir: string) => {
      const created = await register(dir);
      expect(created.status).toBe(201);
      const got = await r.call("GET", `/api/v1/projects/${created.body.id}`);
      return got.body.hook_status;
    };
    expect(await status(viaDir)).toEqual({ has_gateway_yaml: false, configured_hooks: [] });
    expect(await status(viaFile)).toEqual({ has_gateway_yaml: false, configured_hooks: [] });
    expect(await status(inside)).toEqual({ has_gateway_yaml: true, configured_hooks: ["inside_key"] });
    const list = JSON.stringify((await r.call("GET", "/api/v1/projects")).body);
    expect(list).not.toContain("leaked_key");
    expect(list).not.toContain("secret_key");
  });
});
