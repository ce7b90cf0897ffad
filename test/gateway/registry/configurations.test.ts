// /api/v1/configurations over real HTTP: every row of the spec's table, names checked before any database
// or file access, content checked against the declared format and the app config schema, and no partial
// state (database or disk) after an injected file-write failure.
import { sqlGet } from "../helpers.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { nodeRegistryFs, type RegistryFs } from "../../../src/gateway/registry/registry-fs.ts";
import { startRegistryGateway, TOML_CONFIG, YAML_CONFIG, type RegistryGateway } from "./helpers.ts";

let r: RegistryGateway;
let root: string;
beforeAll(async () => {
  r = await startRegistryGateway();
  root = join(r.gw.ctx.dataDir, "configurations");
});
afterAll(() => r.gw.stop());

const create = (name: string, extra: Record<string, unknown> = {}) => r.call("POST", "/api/v1/configurations", { name, config_content: YAML_CONFIG, config_format: "yaml", ...extra });
const row = async (name: string) => (await sqlGet(r.gw.ctx.db, "SELECT name, format, has_pre_run_script AS script FROM configurations WHERE name = ?", [name])) as { name: string; format: string; script: number } | null;
const mode = (path: string) => statSync(path).mode & 0o777;
const dirOf = (name: string) => join(root, name);

/** Records every file operation; `failOn` makes writes to matching paths throw like a full disk. */
function spyFs(failOn?: RegExp): RegistryFs & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    writeFile(path, data, m) {
      calls.push(`write ${path}`);
      if (failOn?.test(path)) throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
      nodeRegistryFs.writeFile(path, data, m);
    },
    readFile: (path) => (calls.push(`read ${path}`), nodeRegistryFs.readFile(path)),
    mkdir: (path, m) => (calls.push(`mkdir ${path}`), nodeRegistryFs.mkdir(path, m)),
    remove: (path) => (calls.push(`remove ${path}`), nodeRegistryFs.remove(path)),
  };
}

async function withFs<T>(fs: RegistryFs, work: () => Promise<T>): Promise<T> {
  r.gw.ctx.registryFs = fs;
  try {
    return await work();
  } finally {
    r.gw.ctx.registryFs = undefined;
  }
}

describe("create, read, list", () => {
  test("POST 201 stores the row and the files (dir 0700, config 0600, pre-run.sh 0700); GET returns the raw content", async () => {
    const res = await create("dev-1", { pre_run_script: "#!/bin/sh\necho ready\n" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: "dev-1", format: "yaml", created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z", bound_projects: 0, has_pre_run_script: true });
    expect(readFileSync(join(dirOf("dev-1"), "config.yaml"), "utf8")).toBe(YAML_CONFIG);
    expect([mode(dirOf("dev-1")), mode(join(dirOf("dev-1"), "config.yaml")), mode(join(dirOf("dev-1"), "pre-run.sh"))]).toEqual([0o700, 0o600, 0o700]);
    const got = await r.call("GET", "/api/v1/configurations/dev-1");
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ name: "dev-1", config_content: YAML_CONFIG, pre_run_script: "#!/bin/sh\necho ready\n", has_pre_run_script: true });
  });

  test("TOML content is parsed as TOML and stored as config.toml", async () => {
    const res = await r.call("POST", "/api/v1/configurations", { name: "tomlish", config_content: TOML_CONFIG, config_format: "toml" });
    expect([res.status, res.body.format]).toEqual([201, "toml"]);
    expect(readdirSync(dirOf("tomlish"))).toEqual(["config.toml"]);
    expect((await r.call("GET", "/api/v1/configurations/tomlish")).body.config_content).toBe(TOML_CONFIG);
  });

  test("409 when the name exists; the stored content is left alone", async () => {
    await create("dup");
    const again = await r.call("POST", "/api/v1/configurations", { name: "dup", config_content: TOML_CONFIG, config_format: "toml" });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain("'dup' already exists");
    expect((await row("dup"))!.format).toBe("yaml");
    expect(readdirSync(dirOf("dup"))).toEqual(["config.yaml"]);
  });

  test("GET list carries every configuration with its bound-project count; GET unknown is 404", async () => {
    const list = await r.call("GET", "/api/v1/configurations");
    expect(list.status).toBe(200);
    expect(list.body.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(["dev-1", "tomlish", "dup"]));
    expect(list.body.find((c: { name: string }) => c.name === "dev-1")).toMatchObject({ bound_projects: 0, has_pre_run_script: true });
    const missing = await r.call("GET", "/api/v1/configurations/nope");
    expect([missing.status, missing.body.error]).toEqual([404, "not_found"]);
  });
});

describe("content validation (422)", () => {
  const cases: Array<[string, string, "yaml" | "toml", string]> = [
    ["an unknown key in TOML", '[permissions]\nsecret_word = ["x"]\n', "toml", "permissions.secret_word: unknown key 'secret_word'"],
    ["a wrong value in YAML", "default_permission_matcher: yolo\n", "yaml", 'default_permission_matcher: invalid value "yolo" (allowed: standard, bypass, bypass_plus, autonomous)'],
    ["unparsable TOML", "a = [1,\n", "toml", "invalid TOML"],
    ["unparsable YAML", "a: [1,\n", "yaml", "invalid YAML"],
    ["YAML content declared as TOML", YAML_CONFIG, "toml", "invalid TOML"],
    ["a top level that is not a map", "- a\n- b\n", "yaml", "the top level of a config must be a map"],
    ["a version from the future", "version: 99\n", "yaml", "newer agent (version 99)"],
  ];
  for (const [what, content, format, message] of cases) {
    test(`${what} is refused, naming the problem; nothing is stored`, async () => {
      const res = await r.call("POST", "/api/v1/configurations", { name: "invalid-content", config_content: content, config_format: format });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe("validation_failed");
      expect(res.body.message).toContain(message);
      expect(await row("invalid-content")).toBeNull();
      expect(existsSync(dirOf("invalid-content"))).toBe(false);
    });
  }

  test("an unsupported format, a missing field or an unknown field is 422", async () => {
    for (const body of [
      { name: "fmt", config_content: "{}", config_format: "json" },
      { name: "fmt", config_format: "yaml" },
      { name: "fmt", config_content: "", config_format: "yaml", colour: "red" },
    ]) {
      const res = await r.call("POST", "/api/v1/configurations", body);
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).not.toContain("red");
    }
    expect(await row("fmt")).toBeNull();
  });
});

describe("invalid names: 422 before any database or file access", () => {
  const bad = ["../x", "A", "a_b", "-a", "a-", "a.b", "", "a/b", "x".repeat(64), "ä"];
  test("in the create body", async () => {
    const fs = spyFs();
    await withFs(fs, async () => {
      for (const name of bad) {
        const res = await create(name);
        expect([name, res.status, res.body.error]).toEqual([name, 422, "validation_failed"]);
        if (name) expect(res.body.message).toContain("allowed: lowercase letters, digits and hyphens");
      }
    });
    expect(fs.calls).toEqual([]);
    expect(existsSync(join(r.gw.ctx.dataDir, "x"))).toBe(false);
    expect((await sqlGet(r.gw.ctx.db, "SELECT count(*) AS n FROM configurations WHERE name NOT IN ('dev-1','tomlish','dup')"))).toEqual({ n: 0 });
  });

  test("in the path of GET, PUT and DELETE, encoded traversal included", async () => {
    const fs = spyFs();
    const paths = ["A", "a_b", "-a", "a-", "..%2Fx", "%2e%2e%2fx", "%2E%2E%2F%2E%2E%2Fetc", "a%2Fb", "..%5Cx", "%00", "dev-1%2F..%2Fdup"];
    await withFs(fs, async () => {
      for (const p of paths) {
        for (const method of ["GET", "PUT", "DELETE"]) {
          const res = await r.call(method, `/api/v1/configurations/${p}`, method === "PUT" ? { config_content: YAML_CONFIG } : undefined);
          // Encoded separators, dots and NULs are refused by the edge before routing (400), the rest by name validation.
          expect([p, method, res.status]).toEqual([p, method, /%(2f|2e|5c|00)/i.test(p) ? 400 : 422]);
        }
      }
    });
    expect(fs.calls).toEqual([]);
    expect(await row("dup")).not.toBeNull();
  });
});

describe("update", () => {
  test("PUT replaces the content in place; an empty body is 422; unknown is 404; invalid content leaves the old", async () => {
    await create("upd");
    const content = "default_permission_matcher: bypass\n";
    const res = await r.call("PUT", "/api/v1/configurations/upd", { config_content: content });
    expect([res.status, res.body.format]).toEqual([200, "yaml"]);
    expect(readFileSync(join(dirOf("upd"), "config.yaml"), "utf8")).toBe(content);
    expect((await r.call("PUT", "/api/v1/configurations/upd", {})).status).toBe(422);
    expect((await r.call("PUT", "/api/v1/configurations/nope", { config_content: content })).status).toBe(404);
    const invalid = await r.call("PUT", "/api/v1/configurations/upd", { config_content: "default_permission_matcher: 3\n" });
    expect(invalid.status).toBe(422);
    expect(readFileSync(join(dirOf("upd"), "config.yaml"), "utf8")).toBe(content);
  });

  test("a format change needs content in the new format: new file, row, then the old file removed", async () => {
    await create("fmt-change");
    const without = await r.call("PUT", "/api/v1/configurations/fmt-change", { config_format: "toml" });
    expect(without.status).toBe(422);
    expect(without.body.message).toContain("needs config_content written in toml");
    const yamlAsToml = await r.call("PUT", "/api/v1/configurations/fmt-change", { config_format: "toml", config_content: YAML_CONFIG });
    expect(yamlAsToml.status).toBe(422);
    const ok = await r.call("PUT", "/api/v1/configurations/fmt-change", { config_format: "toml", config_content: TOML_CONFIG });
    expect([ok.status, ok.body.format]).toEqual([200, "toml"]);
    expect(readdirSync(dirOf("fmt-change"))).toEqual(["config.toml"]);
    expect((await row("fmt-change"))!.format).toBe("toml");
  });

  test("pre_run_script is added, replaced, and deleted by an empty string", async () => {
    await create("scripted");
    const script = join(dirOf("scripted"), "pre-run.sh");
    expect((await r.call("PUT", "/api/v1/configurations/scripted", { pre_run_script: "echo 1\n" })).body.has_pre_run_script).toBe(true);
    expect([readFileSync(script, "utf8"), mode(script)]).toEqual(["echo 1\n", 0o700]);
    const removed = await r.call("PUT", "/api/v1/configurations/scripted", { pre_run_script: "" });
    expect([removed.status, removed.body.has_pre_run_script]).toEqual([200, false]);
    expect(existsSync(script)).toBe(false);
    expect((await r.call("GET", "/api/v1/configurations/scripted")).body.pre_run_script).toBeNull();
  });
});

describe("delete", () => {
  test("204 removes the row and the directory; then 404", async () => {
    await create("gone", { pre_run_script: "true\n" });
    const res = await r.call("DELETE", "/api/v1/configurations/gone");
    expect([res.status, res.body]).toEqual([204, null]);
    expect(await row("gone")).toBeNull();
    expect(existsSync(dirOf("gone"))).toBe(false);
    expect((await r.call("DELETE", "/api/v1/configurations/gone")).status).toBe(404);
  });

  test("409 while a project is bound; 204 once it is unregistered", async () => {
    await create("bound");
    const project = await r.call("POST", "/api/v1/projects", { path: r.projectDir(), config_name: "bound" });
    expect((await r.call("GET", "/api/v1/configurations/bound")).body.bound_projects).toBe(1);
    const refused = await r.call("DELETE", "/api/v1/configurations/bound");
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("bound to 1 project");
    expect(existsSync(join(dirOf("bound"), "config.yaml"))).toBe(true);
    expect((await r.call("DELETE", `/api/v1/projects/${project.body.id}`)).status).toBe(204);
    expect((await r.call("DELETE", "/api/v1/configurations/bound")).status).toBe(204);
  });
});

describe("compensation: no partial state after a failed file write", () => {
  test("create: a failing config write rolls the insert back and leaves no directory", async () => {
    const res = await withFs(spyFs(/config\.yaml$/), () => create("fail-create"));
    expect(res.status).toBe(503);
    expect(res.body.message).toContain("nothing was changed");
    expect(JSON.stringify(res.body)).not.toContain("ENOSPC");
    expect(await row("fail-create")).toBeNull();
    expect(existsSync(dirOf("fail-create"))).toBe(false);
    expect((await create("fail-create")).status).toBe(201);
  });

  test("create: a failing pre-run.sh write (after the config was written) rolls everything back", async () => {
    const res = await withFs(spyFs(/pre-run\.sh$/), () => create("fail-script", { pre_run_script: "true\n" }));
    expect(res.status).toBe(503);
    expect(await row("fail-script")).toBeNull();
    expect(existsSync(dirOf("fail-script"))).toBe(false);
  });

  test("format-change update: a failing write of the new file leaves the row, the old file and no new file", async () => {
    await create("fail-update");
    const res = await withFs(spyFs(/config\.toml$/), () => r.call("PUT", "/api/v1/configurations/fail-update", { config_format: "toml", config_content: TOML_CONFIG }));
    expect(res.status).toBe(503);
    expect((await row("fail-update"))!.format).toBe("yaml");
    expect(readdirSync(dirOf("fail-update"))).toEqual(["config.yaml"]);
    expect(readFileSync(join(dirOf("fail-update"), "config.yaml"), "utf8")).toBe(YAML_CONFIG);
    expect((await r.call("GET", "/api/v1/configurations/fail-update")).body.config_content).toBe(YAML_CONFIG);
  });

  test("update: a failing script write after the new content was written restores the old content", async () => {
    await create("fail-both");
    const res = await withFs(spyFs(/pre-run\.sh$/), () => r.call("PUT", "/api/v1/configurations/fail-both", { config_format: "toml", config_content: TOML_CONFIG, pre_run_script: "true\n" }));
    expect(res.status).toBe(503);
    expect(await row("fail-both")).toEqual({ name: "fail-both", format: "yaml", script: 0 });
    expect(readdirSync(dirOf("fail-both"))).toEqual(["config.yaml"]);
    const same = await withFs(spyFs(/pre-run\.sh$/), () => r.call("PUT", "/api/v1/configurations/fail-both", { config_content: "default_permission_matcher: bypass\n", pre_run_script: "true\n" }));
    expect(same.status).toBe(503);
    expect(readFileSync(join(dirOf("fail-both"), "config.yaml"), "utf8")).toBe(YAML_CONFIG);
  });
});
