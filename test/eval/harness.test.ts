// `bun run eval` proven without a model: the harness runs three tasks of eval/tasks through `agent exec`
// (from source) on the offline `test` provider, once with each task's scripted answer and once with a
// model that only talks, and reports both side by side: success decided by each task's check, model
// calls, tokens, time, and the same figures as JSON.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const TASKS = ["fix-off-by-one", "gitignore", "json-setting"];

function evalRun(args: string[]) {
  const r = Bun.spawnSync([process.execPath, join(ROOT, "eval", "run.ts"), "--agent", join(ROOT, "src", "cli", "main.ts"), ...args], { cwd: ROOT, env: process.env, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

test("two configs side by side: the scripted answers pass every check, a model that does nothing fails them", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-eval-test-"));
  writeFileSync(join(dir, "idle-script.yaml"), "responses:\n  - text: \"I would rather not.\"\n    usage: { input_tokens: 500, output_tokens: 7 }\n");
  const idle = join(dir, "idle.yaml");
  writeFileSync(idle, `providers:\n  scripted: { kind: { type: catalog, name: test }, url: "${join(dir, "idle-script.yaml")}" }\n`);
  const out = join(dir, "results.json");
  const r = evalRun(["--config", join(ROOT, "eval", "configs", "scripted.yaml"), "--config", idle, "--tasks", TASKS.join(","), "--json", out]);
  expect(r.code).toBe(1);

  const lines = r.stdout.trimEnd().split("\n");
  expect(lines[0]).toMatch(/^task\s+scripted\s+idle$/);
  const row = (task: string) => lines.find((l) => l.startsWith(`${task} `))!;
  expect(row("fix-off-by-one")).toMatch(/✓ 3t 4\.5ktok - \d+\.\ds\s+✗ 1t 507tok - \d+\.\ds/);
  expect(row("gitignore")).toMatch(/✓ 2t 1\.8ktok - [\d.]+s\s+✗ 1t 507tok/);
  expect(row("json-setting")).toMatch(/✓ 3t 3\.4ktok - [\d.]+s\s+✗ 1t 507tok/);
  expect(row("total")).toMatch(/^total\s+3\/3 8t 9\.7ktok - [\d.]+s\s+0\/3 3t 1\.5ktok/);
  expect(r.stdout).toContain("gitignore [idle]: check: exit 1");

  const json = JSON.parse(readFileSync(out, "utf8"));
  expect(json.variants.map((v: { name: string }) => v.name)).toEqual(["scripted", "idle"]);
  const first = json.results.find((x: { task: string; variant: string }) => x.task === "fix-off-by-one" && x.variant === "scripted");
  expect(first).toMatchObject({ success: true, turns: 3, tokens: { input: 4_400, output: 145 }, cost: null, exit: 0 });
  expect(first.ms).toBeGreaterThan(0);
  expect(json.results.filter((x: { success: boolean }) => !x.success).map((x: { variant: string }) => x.variant)).toEqual(["idle", "idle", "idle"]);
});

test("a task that does not exist is a usage error naming the tasks there are", () => {
  const r = evalRun(["--tasks", "nope", "--config", join(ROOT, "eval", "configs", "scripted.yaml")]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("--tasks: no task 'nope'");
  expect(r.stderr).toContain("fix-off-by-one");
});
