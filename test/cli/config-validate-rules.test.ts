// `agent config validate` checks the permission rule files as well (issue 35 item 3): a broken rule in
// either file fails the check with file:line:column, and Claude Code's rule form names ours.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { runCli } from "../../src/cli/run.ts";
import { configEnv } from "../helpers/config-env.ts";
import { captureIo } from "../helpers/io.ts";

async function run(c: ReturnType<typeof configEnv>) {
  const io = captureIo({ cwd: c.project, env: c.env });
  const code = await runCli(["config", "validate"], io);
  return { code, out: io.stdout, err: io.stderr };
}

test("a bad rule in the global or the project rule file fails validate, each at its place", async () => {
  const c = configEnv();
  const file = c.globalFile("daemon: { max_tool_turns: 10 }\n");
  await Bun.write(join(c.home, ".config", "agent", "permissions.yaml"), "allow:\n  - Bash(git *)\n");
  c.file(".agent/permissions.yaml", "deny:\n  - shell(rm:*)\n  - fetch(domain:x.com)\n");
  const r = await run(c);
  expect(r.code).toBe(1);
  expect(r.err).toContain(`${join(c.home, ".config", "agent", "permissions.yaml")}:2:5: error: permissions.yaml: rule 'Bash(git *)': 'Bash(git *)' is Claude Code's rule form; ours is 'shell(git:*)'`);
  expect(r.err).toContain(`${join(c.project, ".agent", "permissions.yaml")}:3:5: error: permissions.yaml: rule 'fetch(domain:x.com)': unknown tool 'fetch'`);
  expect(r.out).toBe(`Config has problems: 2 errors, 0 warnings in global ${file}\n`);
});

test("good rule files keep validate green", async () => {
  const c = configEnv();
  const file = c.globalFile("daemon: { max_tool_turns: 10 }\n");
  c.file(".agent/permissions.yaml", "allow:\n  - shell(git status)\n");
  const r = await run(c);
  expect(r.code).toBe(0);
  expect(r.out).toBe(`Config OK (0 errors, 0 warnings): global ${file}\n`);
});
