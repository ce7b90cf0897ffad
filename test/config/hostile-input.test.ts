// Inputs found by the fuzz test: each once crashed, hung or slipped past validation.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { configEnv, problemLines } from "../helpers/config-env.ts";

describe("hostile input", () => {
  test("keys named like Object.prototype members are ordinary keys", () => {
    const c = configEnv();
    c.globalFile(`permissions: { secret_words: [a], toString: 1 }\nproviders:\n  p: { kind: { type: custom_b_compatible }, url: "http://127.0.0.1:1/v1" }\nmodels:\n  m: { provider: constructor, class: full, context_window: 10, inherits: toString }\n  constructor: { context_window: 5 }\n`);
    const lines = problemLines(c.load(), "error");
    expect(lines).toContain("permissions.toString: unknown key 'toString'; no other keys are allowed here");
    expect(lines).toContain("models.m.inherits: unknown parent model 'toString'");
    expect(lines.some((l) => l.startsWith("models.constructor.provider: a custom model"))).toBe(true);
  });

  test("__proto__ keys are refused, not silently dropped", () => {
    const c = configEnv();
    c.globalFile(`{"providers": {"__proto__": {"kind": {"type": "catalog", "name": "a"}}}}`, "json");
    expect(problemLines(c.load(), "error")).toEqual(["providers.__proto__: '__proto__' cannot be used as a key"]);
  });

  test("an unclosed $( is reported", () => {
    const c = configEnv();
    c.globalFile(`tui: { theme: "$(echo hi" }\n`);
    expect(problemLines(c.load(), "error")).toEqual(["tui.theme: unclosed '$(' (no matching ')')"]);
  });

  test("deep nesting is refused quickly with a clear message", () => {
    const c = configEnv();
    const depth = 20_000;
    c.globalFile(`{"plugins":{"x":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}}`, "json");
    const lines = problemLines(c.load(), "error");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/nested (more than 64 levels deep|too deeply)/);
  });

  test("the first invalid UTF-8 byte of a large file is found in one pass", async () => {
    const c = configEnv();
    const file = c.globalFile("");
    const bytes = new Uint8Array(1_000_001).fill(0x20);
    bytes[1_000_000] = 0xff;
    await Bun.write(file, bytes);
    expect(c.load().problems[0]!.message).toBe("the file is not valid UTF-8 (first bad byte at offset 1000000)");
  });

  test("a project config linked to a device or a FIFO is refused without reading it (no endless read, no hang)", () => {
    const c = configEnv();
    mkdirSync(join(c.project, ".agent"), { recursive: true });
    const file = join(c.project, ".agent", "config.yaml");
    symlinkSync("/dev/zero", file);
    expect(c.load().problems.map((p) => [p.file, p.message])).toEqual([[file, "the config is not a regular file"]]);
    const fifo = configEnv();
    mkdirSync(join(fifo.project, ".agent"), { recursive: true });
    const pipe = join(fifo.project, ".agent", "config.yaml");
    expect(Bun.spawnSync(["mkfifo", pipe]).exitCode).toBe(0);
    expect(fifo.load().problems.map((p) => p.message)).toEqual(["the config is not a regular file"]);
  });

  test("a config over 4 MiB is refused before it is read, naming its size and the limit", () => {
    const c = configEnv();
    const file = c.projectFile(`# ${"x".repeat(4 * 1024 * 1024)}\n`);
    const r = c.load();
    expect(r.problems.map((p) => [p.file, p.severity, p.message])).toEqual([[file, "error", `the config file is ${4 * 1024 * 1024 + 3} bytes, over the limit of 4194304 bytes (4 MiB); it was not read`]]);
    c.projectFile(`# ${"x".repeat(4 * 1024 * 1024 - 4)}\n`);
    expect(c.load().problems).toEqual([]);
  });

  test("project values shown in the trust line may be maps with a toString key (found by the fuzz test)", () => {
    const c = configEnv();
    c.globalFile("providers:\n  mine: { kind: { type: custom_b_compatible }, url: https://a.example.com, auth: { type: device_a, profile: work } }\n");
    c.projectFile('{"defaults": {"full": {"toString": 1}}, "providers": {"mine": {"auth": {"type": {"toString": 1}, "profile": {"valueOf": 1}}}}, "mcp_servers": {"s": {"transport": "stdio", "command": "x", "args": [{"toString": 1}]}}}', "json");
    const shown = c.load().trust.items.map((i) => i.shown);
    expect(shown).toEqual([
      'tool server \'s\' runs: x \'{"toString":1}\'',
      'provider \'mine\' at https://a.example.com uses the project\'s auth {"toString":1} (your conversation under an account of its choosing)',
      'default models full: {"toString":1}',
    ]);
  });
});
