// What the sandbox adds to starting a shell command: `bash -c true` spawned directly beside the same
// command under bubblewrap with a workspace_write policy (project writable, .git read-only, ~/.ssh
// covered, no network, new PID namespace), measured in the same run. The session's shell starts once and
// then runs every command, so this is paid per shell start, not per command. Target (issue 35): under 10 ms.
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sandboxPolicy } from "../src/sandbox/policy.ts";
import { startSandbox } from "../src/sandbox/sandbox.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const base = mkdtempSync(join(tmpdir(), "agent-bench-sandbox-"));
const home = join(base, "home");
const project = join(base, "project");
for (const d of [join(home, ".ssh"), join(home, ".aws"), join(project, ".git"), join(base, "shell")]) mkdirSync(d, { recursive: true });
const settings = { mode: "workspace_write", network: false, writableRoots: [], autonomy: "sandboxed", notes: [] } as const;
const places = { projectRoot: project, home, agentDirs: [join(home, ".config", "agent")], secretPaths: [] };
const started = startSandbox({ ...settings, writableRoots: [], notes: [] }, places);
if (!started.sandbox) {
  console.log(`no sandbox here: ${started.notice}`);
  process.exit(0);
}
const argv = ["bash", "--noprofile", "--norc", "-c", "true"];
const wrapped = started.sandbox.wrap(argv, join(base, "shell"));
if (!sandboxPolicy({ ...settings, writableRoots: [], notes: [] }, places)) throw new Error("no policy");

function time(cmd: string[]): number {
  const t0 = performance.now();
  const r = Bun.spawnSync(cmd, { cwd: project, stdout: "ignore", stderr: "ignore" });
  if (r.exitCode !== 0) throw new Error(`${cmd[0]} exited ${r.exitCode}`);
  return performance.now() - t0;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// Warm both paths (page cache, the probe) before measuring, then alternate so drift hits both alike.
for (let i = 0; i < 5; i++) time(argv), time(wrapped);
const plain: number[] = [];
const sandboxed: number[] = [];
for (let i = 0; i < RUNS; i++) {
  plain.push(time(argv));
  sandboxed.push(time(wrapped));
}
const added = median(sandboxed) - median(plain);
console.log(`shell start, median of ${RUNS}: unsandboxed ${median(plain).toFixed(2)} ms, bubblewrap ${median(sandboxed).toFixed(2)} ms`);
console.log(`added by the sandbox: ${added.toFixed(2)} ms (target < 10 ms) ${added < 10 ? "ok" : "OVER TARGET"}`);
