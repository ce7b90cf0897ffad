// Turn overhead of trace export, measured as paired rounds in one process: each pair is one round of
// turns with the daemon's process tracer exporting to a local OTLP/HTTP receiver and one round with no
// telemetry block (the no-op tracer), in alternating order (ABBA...), so drift on a shared machine hits
// both halves of a pair alike. A round is ROUND_TURNS fresh sessions of one turn each (50 tool calls:
// 102 spans); its measured window is each turn from submit to idle plus, at the round's end, the flush
// of that round's spans, so a round pays for its own export (the batch processor's 2 s timer never fires:
// every round flushes first). Garbage collection is left to run where the allocations trigger it; over
// many pairs that charges each round in proportion to what it allocated (a forced collection per round
// would add the same full-heap mark to both halves and hide that share).
// Session setup and close are outside the window (the same for both), and so is a short pause after
// setup: a new session's own startup work (it goes on for a few milliseconds after setup returns) would
// otherwise land in the turn.
// Figures are CPU time of the process (user + system: the GC's and fetch's threads count) but not of the
// JIT compiler's threads, which keep compiling the engine for hundreds of turns and then moved one
// turn by up to 60 ms, in either half of a pair; wall time is shown beside it.
// The overhead is the median over pairs of (exporting round / plain round) - 1, with the interquartile
// range of those ratios and a 95% confidence interval of the median; the first WARMUP_PAIRS pairs are
// discarded (JIT, caches, connections). A turn's CPU strays by about 20% from one turn to the next here
// (mostly where a garbage collection lands), hence many pairs.
//   1. provider over HTTP on 127.0.0.1 (answers instantly): the target, export <= 5% above none.
//   2. provider in-process: the engine alone, the worst case; shown for information.
// BENCH_PAIRS (40; the in-process line runs half as many), BENCH_ROUND_TURNS (4) and BENCH_PROTOCOL
// (http/json, or http/protobuf) change the run.
import { dlopen, FFIType } from "bun:ffi";
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createSessionFromConfig } from "../src/agent/create-session.ts";
import { startTelemetry } from "../src/telemetry/start.ts";
import type { Tracer } from "../src/telemetry/tracer.ts";
import { benchProject, instantProvider, loopbackProject, loopbackProvider, type BenchProject } from "./lib/instant-session.ts";

const CALLS = 50;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 40);
const IN_PROCESS_PAIRS = Math.max(4, Math.round(PAIRS / 2));
const WARMUP_PAIRS = 3;
const ROUND_TURNS = Number(process.env.BENCH_ROUND_TURNS ?? 4);
const PROTOCOL = process.env.BENCH_PROTOCOL === "http/protobuf" ? "http/protobuf" : "http/json";
const TARGET = 1.05;
/** The pause after a session's setup (see the header). */
const SETTLE_MS = 25;

const receiverScript = `let bytes = 0, requests = 0;
const s = Bun.serve({ hostname: "127.0.0.1", port: 0, async fetch(req) {
  if (new URL(req.url).pathname === "/stats") return Response.json({ requests, bytes });
  bytes += (await req.arrayBuffer()).byteLength; requests++;
  return new Response("{}", { headers: { "content-type": "application/json" } });
} });
console.log(s.port);`;
const receiver = Bun.spawn(["bun", "-e", receiverScript], { stdout: "pipe", stderr: "inherit" });
const first = await receiver.stdout.getReader().read();
const url = `http://127.0.0.1:${Number(new TextDecoder().decode(first.value).trim())}`;
const provider = await loopbackProvider(CALLS);
const tracer = await startTelemetry({ block: { endpoint: url, protocol: PROTOCOL }, env: {}, role: "daemon" });

// CPU clocks read with clock_gettime: getrusage (process.cpuUsage) and /proc schedstat only account a
// running thread's time at scheduler ticks, so one reading can be off by a whole tick (4 ms here).
const libc = (() => {
  try {
    return dlopen("libc.so.6", { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } }).symbols;
  } catch {
    return null;
  }
})();
const timespec = new BigInt64Array(2);
const CLOCK_PROCESS_CPUTIME_ID = 2;
/** Linux's CPU clock of one thread of this process (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)). */
const threadClock = (tid: number) => (~tid << 3) | 6;
const clockNs = (id: number) => (libc!.clock_gettime(id, timespec) === 0 ? Number(timespec[0]) * 1e9 + Number(timespec[1]) : 0);

/** Nanoseconds the JIT compiler's threads (JSC names them JITWorker) have run. */
function compilerNs(): number {
  let ns = 0;
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, "utf8") === "JITWorker\n") ns += clockNs(threadClock(Number(tid)));
    } catch {
      // The thread exited between the listing and the read (JSC stops idle compiler threads).
    }
  }
  return ns;
}

/** CPU milliseconds of this process, all threads but the JIT compiler's (see the header); elsewhere than Linux, all of them. */
const cpuMs = () => {
  if (libc && process.platform === "linux") return (clockNs(CLOCK_PROCESS_CPUTIME_ID) - compilerNs()) / 1e6;
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Figures {
  cpu: number;
  wall: number;
}

/** One round: per-turn CPU and wall milliseconds, its export included (and the collections its allocations trigger). */
async function round(project: BenchProject, http: boolean, traced: Tracer | undefined): Promise<Figures> {
  let cpu = 0;
  let wall = 0;
  for (let i = 0; i < ROUND_TURNS; i++) {
    const { session } = await createSessionFromConfig({ cwd: project.root, env: project.env, interactive: false, ...(http ? {} : { fetch: instantProvider(CALLS) }), ...(traced ? { tracer: traced } : {}) });
    await Bun.sleep(SETTLE_MS);
    const cpu0 = cpuMs();
    const wall0 = performance.now();
    session.submit({ text: "do many things" });
    await session.idle();
    cpu += cpuMs() - cpu0;
    wall += performance.now() - wall0;
    await session.close();
  }
  const cpu0 = cpuMs();
  const wall0 = performance.now();
  await traced?.flush();
  cpu += cpuMs() - cpu0;
  wall += performance.now() - wall0;
  return { cpu: cpu / ROUND_TURNS, wall: wall / ROUND_TURNS };
}

const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = p * (s.length - 1);
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
};

interface Comparison {
  on: Figures;
  off: Figures;
  /** Quartiles of the per-pair CPU ratios (exporting / plain). */
  cpu: [number, number, number];
  /** 95% confidence interval of the median ratio (order statistics: no assumption about the spread's shape). */
  ci: [number, number];
  wall: number;
}

async function compare(project: BenchProject, http: boolean, pairs: number): Promise<Comparison> {
  const on: Figures[] = [];
  const off: Figures[] = [];
  for (let i = 0; i < WARMUP_PAIRS + pairs; i++) {
    const a = i % 2 === 0;
    const x = await round(project, http, a ? tracer : undefined);
    const y = await round(project, http, a ? undefined : tracer);
    if (i < WARMUP_PAIRS) continue;
    on.push(a ? x : y);
    off.push(a ? y : x);
  }
  const ratios = on.map((x, i) => x.cpu / off[i]!.cpu);
  const wallRatios = on.map((x, i) => x.wall / off[i]!.wall);
  const med = (xs: Figures[]): Figures => ({ cpu: quantile(xs.map((x) => x.cpu), 0.5), wall: quantile(xs.map((x) => x.wall), 0.5) });
  const sorted = [...ratios].sort((a, b) => a - b);
  const reach = 0.98 * Math.sqrt(sorted.length);
  const ci: [number, number] = [sorted[Math.max(0, Math.floor(sorted.length / 2 - reach))]!, sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length / 2 + reach) - 1)]!];
  return { on: med(on), off: med(off), cpu: [quantile(ratios, 0.25), quantile(ratios, 0.5), quantile(ratios, 0.75)], ci, wall: quantile(wallRatios, 0.5) };
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
const loadBefore = load();
const loopback = await compare(loopbackProject("agent-bench-telemetry-http-", provider.base), true, PAIRS);
const inProcess = await compare(benchProject("agent-bench-telemetry-mem-"), false, IN_PROCESS_PAIRS);
await tracer.shutdown();
const stats = (await (await fetch(`${url}/stats`)).json()) as { requests: number; bytes: number };
receiver.kill();
provider.stop();

const pct = (r: number) => `${r >= 1 ? "+" : ""}${((r - 1) * 100).toFixed(1)}%`;
const line = (label: string, r: Comparison) =>
  `  ${label}: export ${r.on.cpu.toFixed(1)} ms CPU / ${r.on.wall.toFixed(1)} ms wall per turn, none ${r.off.cpu.toFixed(1)} / ${r.off.wall.toFixed(1)}; overhead CPU ${pct(r.cpu[1])} (95% CI ${pct(r.ci[0])} .. ${pct(r.ci[1])}; pairs' IQR ${pct(r.cpu[0])} .. ${pct(r.cpu[2])}), wall ${pct(r.wall)}`;
console.log(`one turn of ${CALLS} tool calls (${CALLS + 1} provider requests, ${2 * CALLS + 2} spans), ${PROTOCOL}; pairs of rounds of ${ROUND_TURNS} turns, ${WARMUP_PAIRS} warm-up pairs discarded; load average ${loadBefore} before, ${load()} after; receiver got ${stats.requests} OTLP requests (${(stats.bytes / 1024).toFixed(0)} KiB)`);
console.log(line(`provider over HTTP on 127.0.0.1, ${PAIRS} pairs (target <= 5% CPU)`, loopback));
console.log(line(`provider in-process, engine alone, ${IN_PROCESS_PAIRS} pairs (worst case, no target)`, inProcess));
if (stats.requests === 0) console.log("FAIL telemetry overhead: the receiver got no spans, so nothing was measured");
else console.log(loopback.cpu[1] <= TARGET ? "PASS telemetry overhead" : "FAIL telemetry overhead");
