// `agent config validate|show|path` as a user runs them: output, exit codes, JSON, redaction.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli } from "../../src/cli/run.ts";
import { configEnv } from "../helpers/config-env.ts";
import { captureIo } from "../helpers/io.ts";

async function run(c: ReturnType<typeof configEnv>, argv: string[], env: Record<string, string> = {}) {
  const io = captureIo({ cwd: c.project, env: { ...c.env, ...env } });
  const code = await runCli(argv, io);
  return { code, out: io.stdout, err: io.stderr };
}

const SECRET = "sk-live-0123456789abcdefXYZ";
const CONFIG = `providers:\n  main:\n    kind: { type: catalog, name: a }\n    auth: { type: static_key, key: "\${PROVIDER_API_KEY}" }\n    headers: { X-Trace: on, Authorization: "Bearer literal-secret-9876543210" }\nmcp_servers:\n  remote:\n    transport: http\n    url: https://mcp.example.org/mcp\n    auth: { type: authorization-header, value: "Bearer mcp-secret-abcdefghij" }\npermissions:\n  secret_words: [hunter2]\ndefaults:\n  full: a-large\n`;

describe("agent config validate", () => {
  test("a valid config exits 0 and names the files", async () => {
    const c = configEnv();
    const file = c.globalFile(CONFIG);
    const r = await run(c, ["config", "validate"], { PROVIDER_API_KEY: SECRET });
    expect(r.code).toBe(0);
    // The two secrets typed into the file (not \${VAR}) are warnings that do not fail the check.
    expect(r.out).toBe(`Config OK (0 errors, 2 warnings): global ${file}\n`);
    expect(r.err).toContain(`${file}:5:`);
    expect(r.err).toContain("warning: providers.main.headers.Authorization: is a secret written into the file");
    expect(r.err).toContain("warning: mcp_servers.remote.auth.value: is a secret written into the file");
    expect(r.err).not.toContain("literal-secret-9876543210");
  });

  test("errors exit 1 with file:line:column and key path on stderr; warnings do not fail", async () => {
    const c = configEnv();
    const file = c.globalFile("daemon:\n  disabled_tools: [exit_tool]\n  max_tool_turns: lots\n");
    const r = await run(c, ["config", "validate"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${file}:2:20: warning: daemon.disabled_tools[0]: 'exit_tool' is required`);
    expect(r.err).toContain(`${file}:3:3: error: daemon.max_tool_turns: expected an integer, found "lots"`);
    expect(r.out).toBe(`Config has problems: 1 error, 1 warning in global ${file}\n`);
  });

  test("--json reports files, errors and warnings for scripts", async () => {
    const c = configEnv();
    const file = c.globalFile("daemon:\n  max_tool_turns: -3\n");
    const r = await run(c, ["config", "validate", "--json"]);
    expect(r.code).toBe(1);
    const body = JSON.parse(r.out);
    expect(body.ok).toBe(false);
    expect(body.files).toEqual([{ layer: "global", path: file, version: null, upgraded_in_memory: true }]);
    expect(body.errors).toEqual([
      { severity: "error", path: "daemon.max_tool_turns", message: "-3 is out of range", allowed: "at least 0 and at most 4294967295", file, line: 2, column: 3 },
    ]);
  });

  test("no config at all is valid and says how to create one", async () => {
    const c = configEnv();
    const r = await run(c, ["config", "validate"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("No config file found. Create");
  });
});

describe("agent config show", () => {
  test("secrets are redacted in every output form", async () => {
    const c = configEnv();
    c.globalFile(CONFIG);
    for (const argv of [["config", "show"], ["config", "show", "--json"], ["config", "show", "--effective"], ["config", "show", "--effective", "--json"]]) {
      const r = await run(c, argv, { PROVIDER_API_KEY: SECRET });
      expect(r.code).toBe(0);
      const all = r.out + r.err;
      for (const secret of [SECRET, "literal-secret-9876543210", "mcp-secret-abcdefghij", "hunter2"]) expect(all).not.toContain(secret);
      expect(all).toContain("[redacted]");
      expect(all).toContain("X-Trace");
    }
  });

  test("--effective shows which layer set each key, resolved models and derived values", async () => {
    const c = configEnv();
    c.globalFile("providers:\n  t: { kind: { type: catalog, name: test } }\ndaemon: { max_tool_turns: 4, log_level: info }\n");
    c.projectFile("daemon: { log_level: debug }\n");
    const r = await run(c, ["config", "show", "--effective", "--json"]);
    const body = JSON.parse(r.out);
    expect(body.origins["daemon.max_tool_turns"]).toBe("global");
    expect(body.origins["daemon.log_level"]).toBe("project");
    expect(body.models["test-scripted"]).toMatchObject({ provider: "t", context_window: 128000, compaction_threshold: 0.8, max_tool_batch_size: 5 });
    expect(body.models["test-scripted"].derived).toContain("compaction_threshold");
    expect(body.defaults.full).toEqual({ model: "test-scripted", effort: null, source: "catalog:t" });
    const text = await run(c, ["config", "show", "--effective"]);
    expect(text.out).toContain("log_level: debug # project");
    expect(text.out).toContain("max_tool_turns: 4 # global");
    expect(text.out).toContain("derived: max_output_tokens_per_turn=15360");
  });
});

describe("agent config path", () => {
  test("prints the global and project locations", async () => {
    const c = configEnv();
    const project = c.projectFile("{}\n");
    const r = await run(c, ["config", "path", "--json"]);
    const body = JSON.parse(r.out);
    expect(body.global).toEqual({ path: join(c.home, ".config", "agent", "config.yaml"), exists: false });
    expect(body.project).toEqual({ path: project, exists: true });
    expect(body.project_root).toBe(c.project);
  });
});

describe("agent print config-schema", () => {
  test("prints the schema in json, json-pretty and yaml", async () => {
    const c = configEnv();
    const json = await run(c, ["print", "config-schema", "--format", "json"]);
    const doc = JSON.parse(json.out);
    expect(doc.title).toBe("app config");
    expect(json.out.trim().split("\n")).toHaveLength(1);
    const { parse } = await import("yaml");
    expect(parse((await run(c, ["print", "config-schema", "--format", "yaml"])).out)).toEqual(doc);
    expect(JSON.parse((await run(c, ["print", "config-schema"])).out)).toEqual(doc);
  });
});
