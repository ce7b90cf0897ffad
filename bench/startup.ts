// Startup of `dist/agent --version` against a floor measured in the same run: a minimal compiled Bun
// binary that prints "x" (same compile options that matter: bytecode, esm). Prints median wall time and
// peak RSS of each, the ratio, and PASS/FAIL against the targets (median <= 2x floor, peak RSS <= 40 MB).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const AGENT = join(ROOT, "dist", "agent");
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const RSS_RUNS = Math.min(RUNS, 10);
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

if (!existsSync(AGENT)) {
  const built = Bun.spawnSync(["bun", "run", "build.ts"], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
  if (built.exitCode !== 0) process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), "agent-bench-startup-"));
const floor = join(work, "floor");
writeFileSync(join(work, "floor.ts"), 'console.log("x");\n');
const build = await Bun.build({ entrypoints: [join(work, "floor.ts")], compile: { outfile: floor }, bytecode: true, format: "esm", target: "bun" });
if (!build.success) {
  for (const log of build.logs) console.error(log);
  process.exit(1);
}

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work };

function wallMs(cmd: string[]): number {
  const start = Bun.nanoseconds();
  const proc = Bun.spawnSync(cmd, { env, stdout: "pipe", stderr: "pipe" });
  const ms = (Bun.nanoseconds() - start) / 1e6;
  if (proc.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited ${proc.exitCode}: ${proc.stderr}`);
  return ms;
}

/** Peak RSS in KiB: GNU time's %M when installed, else the kernel's figure for the child. */
function peakRssKiB(cmd: string[]): number {
  if (TIME) {
    const proc = Bun.spawnSync([TIME, "-f", "%M", ...cmd], { env, stdout: "pipe", stderr: "pipe" });
    const last = proc.stderr.toString().trim().split("\n").at(-1) ?? "";
    const kib = Number(last);
    if (Number.isFinite(kib) && kib > 0) return kib;
  }
  const proc = Bun.spawnSync(cmd, { env, stdout: "pipe", stderr: "pipe" });
  // maxRSS is in KiB on Linux.
  return proc.resourceUsage.maxRSS;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

const agentCmd = [AGENT, "--version"];
const floorCmd = [floor];
for (let i = 0; i < 3; i++) {
  wallMs(agentCmd);
  wallMs(floorCmd);
}
const agentTimes: number[] = [];
const floorTimes: number[] = [];
for (let i = 0; i < RUNS; i++) {
  // Interleaved, alternating which goes first, so drift on a noisy machine hits both alike.
  if (i % 2) {
    agentTimes.push(wallMs(agentCmd));
    floorTimes.push(wallMs(floorCmd));
  } else {
    floorTimes.push(wallMs(floorCmd));
    agentTimes.push(wallMs(agentCmd));
  }
}
const agentRss: number[] = [];
const floorRss: number[] = [];
for (let i = 0; i < RSS_RUNS; i++) {
  agentRss.push(peakRssKiB(agentCmd));
  floorRss.push(peakRssKiB(floorCmd));
}
rmSync(work, { recursive: true, force: true });

const agentMedian = median(agentTimes);
const floorMedian = median(floorTimes);
const ratio = agentMedian / floorMedian;
const agentPeakMB = Math.max(...agentRss) / 1024;
const floorPeakMB = Math.max(...floorRss) / 1024;
const timeOk = ratio <= 2;
const rssOk = agentPeakMB <= 40;

console.log(`startup: ${RUNS} interleaved runs each, peak RSS from ${TIME ? "/usr/bin/time -f %M" : "resourceUsage.maxRSS"} (${RSS_RUNS} runs)`);
console.log(`  dist/agent --version   median ${agentMedian.toFixed(2)} ms   peak RSS ${agentPeakMB.toFixed(1)} MB`);
console.log(`  floor (bun "x" binary) median ${floorMedian.toFixed(2)} ms   peak RSS ${floorPeakMB.toFixed(1)} MB`);
console.log(`  ratio ${ratio.toFixed(2)}x (target <= 2x): ${timeOk ? "PASS" : "FAIL"}`);
console.log(`  peak RSS ${agentPeakMB.toFixed(1)} MB (target <= 40 MB): ${rssOk ? "PASS" : "FAIL"}`);
