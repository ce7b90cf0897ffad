// `agent --version` through npm's `agent` after the postinstall replaced the launcher with the binary,
// through the Node launcher (the same tarballs installed with --ignore-scripts), and the binary run
// directly, measured in one run, interleaved. The tarballs are packed by scripts/release-npm.ts from
// dist/agent for this machine and installed with the real npm, offline, into temporary prefixes.
// Prints the median and the 10th-90th percentile of each; no pass/fail (the launcher's cost is Node's start).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildNpmPackages } from "../scripts/release-npm.ts";
import { hostTarget } from "../scripts/release-targets.ts";
import { BINARY, ensureBinary } from "../test/helpers/binary.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const host = hostTarget();
if (!host || host.os === "win32") {
  console.error("npm-start: runs on Linux and macOS only (on Windows npm's shims always start Node)");
  process.exit(1);
}
ensureBinary();
const version = Bun.spawnSync([BINARY, "--version"], { stdout: "pipe" }).stdout.toString().split(" ")[1]!;
const work = mkdtempSync(join(tmpdir(), "agent-bench-npm-"));
try {
  const tarballs = buildNpmPackages({ version, binaries: [{ target: host, path: BINARY }], work: join(work, "pkg"), out: join(work, "tgz") }).map((t) => join(work, "tgz", t));
  const install = (prefix: string, ...flags: string[]) => {
    const r = Bun.spawnSync(["npm", "install", "-g", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, ...flags, ...tarballs], { env: { ...process.env, npm_config_cache: join(work, "npm-cache") }, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`npm install failed: ${r.stderr}`);
    return join(prefix, "bin", "agent");
  };
  const direct = install(join(work, "postinstall"));
  const launcher = install(join(work, "launcher"), "--ignore-scripts");
  const elf = (path: string) => readFileSync(path).subarray(0, 4).toString("latin1") === "\x7fELF";
  if (!elf(direct) || elf(launcher)) throw new Error(`expected ${direct} to be the binary and ${launcher} the launcher`);

  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work };
  const wallMs = (cmd: string[]) => {
    const start = Bun.nanoseconds();
    const proc = Bun.spawnSync(cmd, { env, stdout: "pipe", stderr: "pipe" });
    if (proc.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited ${proc.exitCode}: ${proc.stderr}`);
    return (Bun.nanoseconds() - start) / 1e6;
  };
  const cases = [
    { name: "npm's agent after postinstall (the binary)", cmd: [direct, "--version"], times: [] as number[] },
    { name: "npm's agent with --ignore-scripts (launcher)", cmd: [launcher, "--version"], times: [] as number[] },
    { name: "the binary (dist/agent)", cmd: [BINARY, "--version"], times: [] as number[] },
    { name: "node -e 0 (Node's start alone)", cmd: ["node", "-e", "0"], times: [] as number[] },
  ];
  for (let i = 0; i < 3; i++) for (const c of cases) wallMs(c.cmd);
  for (let i = 0; i < RUNS; i++) {
    // Rotate which case goes first, so drift on a loaded machine hits all alike.
    for (let j = 0; j < cases.length; j++) {
      const c = cases[(i + j) % cases.length]!;
      c.times.push(wallMs(c.cmd));
    }
  }
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  console.log(`npm-start: agent --version, ${RUNS} interleaved runs each (${process.platform}-${process.arch}, npm ${Bun.spawnSync(["npm", "--version"], { stdout: "pipe" }).stdout.toString().trim()}, node ${Bun.spawnSync(["node", "--version"], { stdout: "pipe" }).stdout.toString().trim()})`);
  for (const c of cases) console.log(`  ${c.name.padEnd(46)} median ${pct(c.times, 0.5).toFixed(1).padStart(6)} ms   p10-p90 ${pct(c.times, 0.1).toFixed(1)}-${pct(c.times, 0.9).toFixed(1)} ms`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
