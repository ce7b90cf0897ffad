import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createShellTool, type ShellTool, type ShellToolOptions } from "../../src/tools/shell.ts";
import { runTool } from "../../src/tools/tool.ts";
import { call, makeContext, makeProject } from "./helpers.ts";
import { processRunning } from "../helpers/processes.ts";

const open: ShellTool[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

function shell(root: string, options: Partial<ShellToolOptions> = {}): ShellTool {
  const tool = createShellTool({ command: "bash", initScript: null, projectRoot: root, ...options });
  open.push(tool);
  return tool;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await Bun.sleep(20);
}

describe("shell (bash)", () => {
  test("cd, exports and functions carry over; stdout and stderr are both captured; the exit code is reported", async () => {
    const root = makeProject({ "sub/file.txt": "x" });
    const ctx = makeContext(root);
    const sh = shell(root);
    const first = await call(sh, { command: "cd sub && export GREETING=hello && greet() { echo \"hi $1\"; }\necho out; echo err >&2" }, ctx);
    expect(first.isError).toBeUndefined();
    expect(first.output).toBe("out\nerr\n[exit code 0]");
    const second = await call(sh, { command: "pwd; echo $GREETING; greet you; ls; exit_status() { return 7; }; exit_status" }, ctx);
    expect(second.output).toBe(`${join(root, "sub")}\nhello\nhi you\nfile.txt\n[exit code 7]`);
    expect(second.isError).toBeUndefined();
    expect(second.metadata).toMatchObject({ exitCode: 7, end: "completed" });
  });

  test("commands get no stdin and run with pagers off", async () => {
    const root = makeProject();
    const sh = shell(root);
    const result = await call(sh, { command: "cat; echo \"[$PAGER/$GIT_PAGER]\"" }, makeContext(root));
    expect(result.output).toBe("[cat/cat]\n[exit code 0]");
  });

  test("init_script is sourced once, before the first call, and its exports apply to later calls", async () => {
    const root = makeProject({ ".agent/init.sh": "echo sourced >> init-count.txt\nexport FROM_INIT=yes\n" });
    const ctx = makeContext(root);
    const sh = shell(root, { initScript: ".agent/init.sh" });
    expect(existsSync(join(root, "init-count.txt"))).toBe(false);
    expect((await call(sh, { command: "echo $FROM_INIT" }, ctx)).output).toBe("yes\n[exit code 0]");
    expect((await call(sh, { command: "echo $FROM_INIT" }, ctx)).output).toBe("yes\n[exit code 0]");
    expect(readFileSync(join(root, "init-count.txt"), "utf8")).toBe("sourced\n");
  });

  test("a missing or failing init_script is reported with the config field", async () => {
    const root = makeProject({ "bad-init.sh": "echo broken setup >&2\nfalse\n" });
    const ctx = makeContext(root);
    const missing = await call(shell(root, { initScript: "nope.sh" }), { command: "echo hi" }, ctx);
    expect(missing.isError).toBe(true);
    expect(missing.output).toContain('agent_behavior.shell.init_script ("nope.sh") does not exist');
    const outside = await call(shell(root, { initScript: "../elsewhere.sh" }), { command: "echo hi" }, ctx);
    expect(outside.output).toContain("points outside the project");
    const failing = await call(shell(root, { initScript: "bad-init.sh" }), { command: "echo still runs" }, ctx);
    expect(failing.output).toBe("[init_script bad-init.sh did not complete: exit code 1]\nbroken setup\nstill runs\n[exit code 0]");
  });

  test("cancelling kills the command's whole process group; the next call gets a new shell with cwd and exports restored", async () => {
    const root = makeProject({ "deep/x": "" });
    const ctx = makeContext(root);
    const sh = shell(root);
    await call(sh, { command: "cd deep; export KEPT=1" }, ctx);
    const controller = new AbortController();
    const pending = runTool(sh, { command: "sleep 300 & echo $! > ../child.pid; echo started; wait" }, ctx, controller.signal);
    const pidFile = join(root, "child.pid");
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const child = Number(readFileSync(pidFile, "utf8"));
    expect(processRunning(child)).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.output).toStartWith("started\n[cancelled: the command and its shell were killed");
    await until(() => !processRunning(child));
    const after = await call(sh, { command: "pwd; echo kept=$KEPT" }, ctx);
    expect(after.output).toContain("[a new shell was started because the previous one ended");
    expect(after.output).toEndWith(`${join(root, "deep")}\nkept=1\n[exit code 0]`);
  });

  test("a command past its timeout is killed and the result says how to proceed", async () => {
    const root = makeProject();
    const sh = shell(root);
    const result = await call(sh, { command: "echo before; sleep 60", timeout_secs: 1 }, makeContext(root));
    expect(result.isError).toBe(true);
    expect(result.output).toStartWith("before\n[timed out after 1 s: the command and its shell were killed");
    expect(result.output).toContain("at most 600");
    expect((await call(sh, { command: "echo again" }, makeContext(root))).output).toEndWith("again\n[exit code 0]");
  });

  test("`exit` ends the shell with its code; the next call starts a new one", async () => {
    const root = makeProject();
    const ctx = makeContext(root);
    const sh = shell(root);
    const result = await call(sh, { command: "echo bye; exit 3" }, ctx);
    expect(result.output).toBe("bye\n[exit code 3; the command ended the shell itself (exit, or a failure under set -e); the next command starts a new shell]");
    expect(result.metadata).toMatchObject({ exitCode: 3, end: "shell_exited" });
    expect((await call(sh, { command: "echo back" }, ctx)).output).toEndWith("back\n[exit code 0]");
  });

  test("long output is cut to its head and tail with the cap stated", async () => {
    const root = makeProject();
    const sh = shell(root);
    const result = await call(sh, { command: "echo FIRST; head -c 200000 /dev/zero | tr '\\0' a; echo; echo LAST" }, makeContext(root));
    expect(result.output).toStartWith("FIRST\naaaa");
    expect(result.output).toContain("omitted: output was 195.3 KB in 3 lines, capped at 30.0 KB (first 10.0 KB and last 20.0 KB shown at most, cut at line ends)");
    expect(result.output).toEndWith("aaaa\nLAST\n[exit code 0]");
    expect(result.output.length).toBeLessThan(31 * 1024);
    expect(result.metadata).toMatchObject({ outputCapped: true, outputBytes: 200_012 });
  });

  test("bytes that are not UTF-8 survive as \\xNN", async () => {
    const root = makeProject();
    const sh = shell(root);
    const result = await call(sh, { command: "printf 'caf\\xe9 \\xff\\xfe na\\xc3\\xafve\\n'" }, makeContext(root));
    expect(result.output).toBe("caf\\xe9 \\xff\\xfe naïve\n[exit code 0]");
  });

  test("the environment: credential-looking variables are dropped by default; an engine-supplied env replaces it", async () => {
    const root = makeProject();
    const ctx = makeContext(root);
    process.env.SHELLTEST_API_KEY = "sk-should-not-leak";
    process.env.SHELLTEST_GITHUB_TOKEN = "ghp-should-not-leak";
    process.env.SHELLTEST_PLAIN = "visible";
    try {
      const byDefault = await call(shell(root), { command: "env" }, ctx);
      expect(byDefault.output).toContain("SHELLTEST_PLAIN=visible");
      expect(byDefault.output).not.toContain("should-not-leak");
      let asked = 0;
      const supplied = shell(root, { env: () => (asked++, { PATH: process.env.PATH, ONLY_THIS: "1" }) });
      const result = await call(supplied, { command: "echo \"$ONLY_THIS/${SHELLTEST_PLAIN:-unset}\"" }, ctx);
      expect(result.output).toBe("1/unset\n[exit code 0]");
      expect(asked).toBe(1);
    } finally {
      delete process.env.SHELLTEST_API_KEY;
      delete process.env.SHELLTEST_GITHUB_TOKEN;
      delete process.env.SHELLTEST_PLAIN;
    }
  });

  test("shell calls are exclusive and close() ends background processes", async () => {
    const root = makeProject();
    const ctx = makeContext(root);
    const sh = shell(root);
    expect(sh.exclusive?.({ command: "true" }, ctx)).toBe("shell");
    await call(sh, { command: "sleep 300 & echo $! > bg.pid" }, ctx);
    const pid = Number(readFileSync(join(root, "bg.pid"), "utf8"));
    expect(processRunning(pid)).toBe(true);
    await sh.close();
    await until(() => !processRunning(pid));
    expect(processRunning(pid)).toBe(false);
  });

  test("bad input names the field and the allowed range", async () => {
    const root = makeProject();
    const result = await call(shell(root), { command: "true", timeout_secs: 5000 }, makeContext(root));
    expect(result.isError).toBe(true);
    expect(result.output).toContain("`timeout_secs`");
    expect(result.output).toContain("600");
  });
});

describe("shell (powershell)", () => {
  test.skipIf(!Bun.which("pwsh"))("persistent session (skipped: PowerShell is not installed on this machine)", async () => {
    const root = makeProject({ "sub/x.txt": "" });
    const ctx = makeContext(root);
    const sh = shell(root, { command: "powershell" });
    expect((await call(sh, { command: "Set-Location sub; $env:KEEP = 'yes'" }, ctx)).output).toEndWith("[exit code 0]");
    const second = await call(sh, { command: "(Get-Location).Path; $env:KEEP" }, ctx);
    expect(second.output).toBe(`${join(root, "sub")}\nyes\n[exit code 0]`);
  });

  test("a clear error when PowerShell is missing", async () => {
    if (Bun.which("pwsh") || Bun.which("powershell")) return;
    const root = makeProject();
    const result = await call(shell(root, { command: "powershell" }), { command: "Get-Date" }, makeContext(root));
    expect(result.isError).toBe(true);
    expect(result.output).toContain("neither `pwsh` nor `powershell` is on PATH");
  });
});
