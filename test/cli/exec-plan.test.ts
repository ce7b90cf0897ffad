// The model's plan in `agent exec` (run from source, as a script would call it): `--json` prints each plan_updated event as a line
// with the whole checklist, and plain mode a progress line on stderr.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const MAIN = resolve(import.meta.dir, "../../src/cli/main.ts");

const SCRIPT = `responses:
  - tool_calls:
      - { name: plan, arguments: { items: [{ text: "Read the parser", status: done }, { text: "Port lexer.ts", status: in_progress }] } }
  - text: "Working on it."
`;

function run(args: string[]) {
  const base = mkdtempSync(join(tmpdir(), "agent-exec-plan-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(join(root, ".agent"));
  writeFileSync(join(root, ".agent", "config.yaml"), "providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\n");
  writeFileSync(join(root, "script.yaml"), SCRIPT);
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const proc = Bun.spawnSync([process.execPath, MAIN, ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

test("exec --json prints the plan update as an event line; plain mode says the progress on stderr", () => {
  const r = run(["exec", "--json", "port the lexer"]);
  expect(r.code).toBe(0);
  const events = r.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string });
  const plan = events.find((e) => e.type === "plan_updated");
  expect(plan).toEqual({
    type: "plan_updated",
    turn_id: expect.any(String),
    items: [
      { text: "Read the parser", status: "done" },
      { text: "Port lexer.ts", status: "in_progress" },
    ],
  } as never);
  // The plan needs no permission: exec, which cannot ask, runs it.
  expect(events.find((e) => e.type === "tool_call_completed")).toMatchObject({ result: { name: "plan", status: "completed" } });

  const plain = run(["exec", "port the lexer"]);
  expect(plain.code).toBe(0);
  expect(plain.stdout).toBe("Working on it.\n");
  expect(plain.stderr).toContain("☰ plan 1/2 done: Port lexer.ts");
});
