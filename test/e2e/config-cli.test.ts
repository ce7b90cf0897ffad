// The compiled binary as a user runs it: version, help, typos, `agent config validate|show|upgrade`
// and `agent print config-schema`, each in a throwaway HOME.
import { beforeAll, afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { BINARY, ensureBinary, ROOT } from "../helpers/binary.ts";
import { FULL_CONFIG_PATH, type FullProject, makeFullProject, TEST_KEY_VALUE } from "../config/fixtures/full-project.ts";

let home: string;
let project: string;
let env: Record<string, string>;

function globalConfig(name = "config.yaml"): string {
  return join(env.XDG_CONFIG_HOME!, "agent", name);
}

/** Leaves exactly one global config file (or none). */
function writeGlobal(text: string | null, name = "config.yaml"): string {
  const dir = join(env.XDG_CONFIG_HOME!, "agent");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (text !== null) writeFileSync(join(dir, name), text);
  return join(dir, name);
}

async function agent(args: string[], options: { cwd?: string; extraEnv?: Record<string, string> } = {}) {
  const proc = Bun.spawn([BINARY, ...args], {
    cwd: options.cwd ?? project,
    env: { ...env, ...options.extraEnv },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const VALID = `version: 3
providers:
  local:
    kind: { type: custom_b_compatible }
    url: http://127.0.0.1:9/v1
models:
  small:
    provider: local
    class: full
    context_window: 32000
`;

// The bad value sits on line 10; its key path is models.small.context_window.
const BROKEN = VALID.replace("context_window: 32000", "context_window: lots");

beforeAll(() => {
  ensureBinary();
  home = mkdtempSync(join(tmpdir(), "agent-e2e-home-"));
  project = join(home, "work", "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
  };
}, 120_000);

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

describe("agent binary basics", () => {
  test("--version prints the package version and the commit built from", async () => {
    const r = await agent(["--version"]);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^agent ${pkg.version.replaceAll(".", "\\.")} \\(commit [0-9a-f]{12}(, modified)?\\)\n$`));
    expect(r.stderr).toBe("");
  });

  test("--help lists the commands", async () => {
    const r = await agent(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: agent");
    expect(r.stdout).toMatch(/^\s+config\s+\S/m);
    expect(r.stdout).toMatch(/^\s+print\s+\S/m);
  });

  test("an unknown command exits 2 with one line naming the closest command", async () => {
    const r = await agent(["confg", "validate"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("confg");
    expect(lines[0]).toContain("'config'");
  });
});

describe("agent config validate", () => {
  test("a valid global config: exit 0", async () => {
    const file = writeGlobal(VALID);
    const r = await agent(["config", "validate"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Config OK");
    expect(r.stdout).toContain(file);
  });

  test("the full example (every field) validates through the binary", async () => {
    writeGlobal(null);
    const full: FullProject = await makeFullProject();
    try {
      const r = await agent(["config", "validate", "--config", FULL_CONFIG_PATH], { cwd: full.dir, extraEnv: { AGENT_TEST_KEY: TEST_KEY_VALUE } });
      expect(r.stderr).not.toContain("error");
      expect(r.code).toBe(0);
    } finally {
      full.cleanup();
    }
  });

  test("a broken config: exit 1, file:line:column and the key path on stderr", async () => {
    const file = writeGlobal(BROKEN);
    const r = await agent(["config", "validate"]);
    expect(r.code).toBe(1);
    const line = r.stderr.split("\n").find((l) => l.includes("models.small.context_window"));
    expect(line).toBeDefined();
    expect(line).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:10:(5|21): error: models\\.small\\.context_window: `));
    expect(line).toContain("lots");
  });

  test("--json: machine-readable result on stdout", async () => {
    const file = writeGlobal(BROKEN);
    const bad = await agent(["config", "validate", "--json"]);
    expect(bad.code).toBe(1);
    const report = JSON.parse(bad.stdout);
    expect(report.ok).toBe(false);
    expect(report.files).toEqual([expect.objectContaining({ layer: "global", path: file })]);
    expect(report.errors).toContainEqual(expect.objectContaining({ path: "models.small.context_window", file, line: 10, severity: "error" }));

    writeGlobal(VALID);
    const good = await agent(["config", "validate", "--json"]);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ ok: true, errors: [] });
  });
});

describe("agent print config-schema", () => {
  test("json, json-pretty and yaml print the same draft 2020-12 document", async () => {
    const [json, pretty, yaml] = (await Promise.all(["json", "json-pretty", "yaml"].map((f) => agent(["print", "config-schema", "--format", f])))) as [
      Awaited<ReturnType<typeof agent>>,
      Awaited<ReturnType<typeof agent>>,
      Awaited<ReturnType<typeof agent>>,
    ];
    for (const r of [json, pretty, yaml]) {
      expect(r.code).toBe(0);
      expect(r.stderr).toBe("");
    }
    const fromJson = JSON.parse(json.stdout);
    expect(json.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(pretty.stdout)).toEqual(fromJson);
    expect(parseYaml(yaml.stdout)).toEqual(fromJson);
    expect(fromJson.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(fromJson.title).toBe("app config");
    expect(Object.keys(fromJson.properties)).toContain("mcp_servers");
  });
});

describe("agent config upgrade", () => {
  test("adds version: 3 to an unversioned YAML file and keeps its comments", async () => {
    const original = `# My agent config
# (written before versions existed)
providers:
  local: # the box under my desk
    kind: { type: custom_b_compatible }
    url: http://127.0.0.1:9/v1
# models below
models:
  small:
    provider: local
    class: full   # trailing comment
    context_window: 32000
`;
    const file = writeGlobal(original);
    const r = await agent(["config", "upgrade"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(file);
    const upgraded = readFileSync(file, "utf8");
    expect(upgraded).toMatch(/^version: 3$/m);
    for (const comment of original.match(/#.*$/gm)!) expect(upgraded).toContain(comment);
    const { version, ...rest } = parseYaml(upgraded);
    expect(version).toBe(3);
    expect(rest).toEqual(parseYaml(original));

    const check = await agent(["config", "validate", "--json"]);
    expect(check.code).toBe(0);
    const report = JSON.parse(check.stdout);
    expect(report).toMatchObject({ ok: true, errors: [], warnings: [] });
    expect(report.files[0]).toMatchObject({ version: 3, upgraded_in_memory: false });

    const again = await agent(["config", "upgrade"]);
    expect(again.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(upgraded);
  });
});

describe("agent config show", () => {
  const SECRET = "sk-e2e-very-secret-4d9f2b";
  const CONFIG = `version: 3
providers:
  local:
    kind: { type: custom_b_compatible }
    url: http://127.0.0.1:9/v1
    auth: { type: static_key, key: "\${SECRET_KEY}" }
    headers: { X-Api-Key: "\${SECRET_KEY}" }
models:
  small:
    provider: local
    class: full
    context_window: 32000
mcp_servers:
  remote:
    transport: http
    url: https://mcp.example/mcp
    auth: { type: authorization-header, value: "Bearer \${SECRET_KEY}" }
`;

  test("never prints the value substituted from ${SECRET_KEY}", async () => {
    writeGlobal(CONFIG);
    const variants = [["config", "show"], ["config", "show", "--effective"], ["config", "show", "--json"], ["config", "show", "--effective", "--json"], ["config", "validate", "--json"]];
    for (const args of variants) {
      const r = await agent(args, { extraEnv: { SECRET_KEY: SECRET } });
      expect(r.code).toBe(0);
      if (args[1] === "show") expect(r.stdout).toContain("http://127.0.0.1:9/v1");
      expect(r.stdout).not.toContain(SECRET);
      expect(r.stderr).not.toContain(SECRET);
      expect(r.stdout).not.toContain(SECRET.slice(3, 15));
    }
    const shown = await agent(["config", "show", "--json"], { extraEnv: { SECRET_KEY: SECRET } });
    const body = JSON.parse(shown.stdout);
    expect(typeof body.config.providers.local.auth.key).toBe("string");
    expect(body.config.providers.local.auth.key).not.toBe("");
  });
});
