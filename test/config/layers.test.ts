// File discovery, layer merge semantics, global-only blocks and --config.
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { configEnv, problemLines } from "../helpers/config-env.ts";

describe("files", () => {
  test("global config is read from XDG_CONFIG_HOME, else ~/.config", () => {
    const c = configEnv();
    c.globalFile("tui: { theme: dark }\n");
    expect(c.load().config.tui?.theme).toBe("dark");
    const noXdg = c.load({ env: { XDG_CONFIG_HOME: "" } });
    expect(noXdg.layers[0]!.path).toBe(join(c.home, ".config", "agent", "config.yaml"));
  });

  test("yaml, yml, toml and json all load", () => {
    for (const [ext, text] of [
      ["yml", "tui:\n  theme: a\n"],
      ["toml", "[tui]\ntheme = \"a\"\n"],
      ["json", "{\"tui\": {\"theme\": \"a\"}}"],
    ] as const) {
      const c = configEnv();
      c.globalFile(text, ext);
      const result = c.load();
      expect(problemLines(result)).toEqual([]);
      expect(result.config.tui?.theme).toBe("a");
    }
  });

  test("two files for one layer is an error naming both", () => {
    const c = configEnv();
    const a = c.globalFile("{}\n", "yaml");
    const b = c.globalFile("{}", "json");
    const result = c.load();
    expect(result.ok).toBe(false);
    expect(result.problems[0]!.message).toContain(a);
    expect(result.problems[0]!.message).toContain(b);
  });

  test("the project config is found from a subdirectory upward, not past the repository root", () => {
    const c = configEnv();
    c.projectFile("tui: { theme: project }\n");
    const deep = join(c.project, "src", "deep");
    mkdirSync(deep, { recursive: true });
    expect(c.load({ cwd: deep }).config.tui?.theme).toBe("project");
    // A .agent above the repository root is not this project's.
    const nested = join(c.project, "vendor", "lib");
    mkdirSync(join(nested, ".git"), { recursive: true });
    expect(c.load({ cwd: nested }).layers).toEqual([]);
  });

  test("--config replaces the global layer", () => {
    const c = configEnv();
    c.globalFile("tui: { theme: global }\n");
    const other = c.file("other.yaml", "tui: { theme: other }\n");
    expect(c.load({ configFile: other }).config.tui?.theme).toBe("other");
    const missing = c.load({ configFile: join(c.project, "nope.yaml") });
    expect(missing.ok).toBe(false);
    expect(missing.problems[0]!.message).toBe("config file not found");
  });

  test("parse errors carry the file and line:column", () => {
    const c = configEnv();
    const file = c.globalFile("tui:\n  theme: [unclosed\n");
    const p = c.load().problems[0]!;
    expect(p.file).toBe(file);
    expect(p.message).toStartWith("invalid YAML");
    expect(p.line).toBeGreaterThan(1);
    const t = configEnv();
    t.globalFile("[tui]\ntheme = = 1\n", "toml");
    const tp = t.load().problems[0]!;
    expect(tp.message).toStartWith("invalid TOML");
    expect(tp.line).toBe(2);
  });

  test("invalid UTF-8 is reported, not half-read", async () => {
    const c = configEnv();
    const file = c.globalFile("");
    await Bun.write(file, new Uint8Array([0x74, 0x75, 0x69, 0x3a, 0x20, 0xff, 0xfe, 0x0a]));
    const p = c.load().problems[0]!;
    expect(p.message).toBe("the file is not valid UTF-8 (first bad byte at offset 5)");
  });
});

describe("merge", () => {
  test("maps merge by key, scalars and arrays from the project replace, null erases", () => {
    const c = configEnv();
    c.globalFile(`daemon:\n  log_level: info\n  max_tool_turns: 10\n  disabled_tools: [web_fetch, web_search]\n  retry: { max_retries: 5, base_delay_ms: 10 }\ntui: { theme: dark }\n`);
    c.projectFile(`daemon:\n  log_level: debug\n  disabled_tools: [grep]\n  retry: { max_retries: null }\ntui: null\n`);
    const result = c.load();
    expect(problemLines(result)).toEqual([]);
    expect(result.config.daemon).toEqual({
      log_level: "debug",
      max_tool_turns: 10,
      disabled_tools: ["grep"],
      retry: { base_delay_ms: 10 },
    });
    expect(result.config.tui).toBeUndefined();
    expect(result.origins.get("daemon.log_level")).toBe("project");
    expect(result.origins.get("daemon.max_tool_turns")).toBe("global");
    expect(result.origins.has("daemon.retry.max_retries")).toBe(false);
  });

  test("problems point at the layer that set the value", () => {
    const c = configEnv();
    c.globalFile("daemon:\n  max_tool_turns: 3\n");
    const project = c.projectFile("# project\ndaemon:\n  max_tool_turns: -1\n");
    const p = c.load().problems[0]!;
    expect(p).toMatchObject({ file: project, line: 3, column: 3, path: "daemon.max_tool_turns" });
  });
});

describe("global authority", () => {
  test("a project may not set or erase keys inside data, updates or telemetry", () => {
    const c = configEnv();
    c.globalFile("updates: { channel: stable }\ntelemetry: { endpoint: http://127.0.0.1:4318 }\n");
    const project = c.projectFile("data: { automatic_crash_reporting: true }\nupdates: { channel: null }\ntelemetry: null\n");
    const result = c.load();
    expect(result.problems.filter((p) => p.severity === "error").map((p) => [p.file, p.path])).toEqual([
      [project, "data.automatic_crash_reporting"],
      [project, "updates.channel"],
      [project, "telemetry"],
    ]);
    expect(problemLines(result)[1]).toBe("updates.channel: a project config may not erase keys inside 'updates'; set it in the global config");
    // The global values stand.
    expect(result.config.updates?.channel).toBe("stable");
    expect(result.config.telemetry?.endpoint).toBe("http://127.0.0.1:4318");
    expect(result.config.data).toBeUndefined();
  });
});
