// Turn overhead of trace export, measured as paired rounds in one process: each pair is one round of
// turns with the daemon's process tracer exporting to a local OTLP/HTTP receiver and one round with no
// telemetry block (the no-op tracer), in alternating order (ABBA...), so drift on a shared machine hits
// both halves of a pair alike. A round is ROUND_TURNS fresh sessions of one turn each (50 tool calls:
// 102 spans).
// The target is the turn's wall time, submit to idle: what a user waits for. Export runs in a worker
// thread (src/telemetry/export-worker.ts), and a batch that is ready while a turn runs waits until the
// turn is over (src/telemetry/turn-gate.ts), so its cost must land where a busy daemon would have it:
// each exporting turn triggers an export of the previous turn's spans (the processor's flush, not
// awaited) at its first provider request, as the 2-second export timer does when it fires during a turn;
// the gate holds the batch back, and the hand-off and the worker's encoding and request run after the
// turn, outside its wall time but inside its CPU window (below). That is one export request per turn,
// where a busy daemon sends one per 2 s (up to 2048 spans): the heavier case. The last turn's spans of a
// round go with the next exporting round's first turn.
// Process CPU is shown beside it, without a target: each turn's window runs on until the export it
// started has been answered, so the worker's encoding and request are counted in the turn that caused
// them (CPU moved to another core is shown, not hidden). It counts every thread (the GC's, fetch's, the
// worker's) but JSC's JIT compiler threads, which keep compiling the engine for hundreds of turns and
// then moved one turn by up to 60 ms, in either half of a pair. The turn's own thread's CPU is shown too.
// Garbage collection is left to run where the allocations trigger it; over many pairs that charges each
// round in proportion to what it allocated.
// Session setup and close are outside the windows (the same for both), and so is a short pause after
// setup: a new session's own startup work (it goes on for a few milliseconds after setup returns) would
// otherwise land in the turn.
// Each overhead is the median over pairs of (exporting round / plain round) - 1, with the interquartile
// range of those ratios and a 95% confidence interval of the median; the first WARMUP_PAIRS pairs are
// discarded (JIT, caches, connections). A turn strays by about 20% from one turn to the next here
// (mostly where a garbage collection lands), hence many pairs.
//   1. provider over HTTP on 127.0.0.1 (answers instantly): the target, turn wall time with export <= 5%
//      above none.
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
const CLOCK_THREAD_CPUTIME_ID = 3;
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

/** CPU milliseconds of the thread that runs the turns. */
const mainCpuMs = () => (libc && process.platform === "linux" ? clockNs(CLOCK_THREAD_CPUTIME_ID) / 1e6 : cpuMs());

/** Per turn, milliseconds. */
interface Figures {
  /** Submit to idle (the target). */
  wall: number;
  /** The process (see the header). */
  cpu: number;
  /** The turn's thread. */
  main: number;
  /** The export's call on the turn's thread inside `wall` (the gate only queues the batch there). */
  handoff: number;
}

/** One round: per-turn figures, each exporting turn carrying the hand-off and export of the turn before it. */
async function round(project: BenchProject, http: boolean, traced: Tracer | undefined): Promise<Figures> {
  const sum: Figures = { wall: 0, cpu: 0, main: 0, handoff: 0 };
  for (let i = 0; i < ROUND_TURNS; i++) {
    const { session } = await createSessionFromConfig({ cwd: project.root, env: project.env, interactive: false, ...(http ? {} : { fetch: instantProvider(CALLS) }), ...(traced ? { tracer: traced } : {}) });
    await Bun.sleep(SETTLE_MS);
    // The export fires while the turn runs (as the 2-second timer does in a busy daemon): at the turn's
    // first provider request. The plain half listens the same way and does nothing.
    let exported: Promise<void> | undefined;
    const unsubscribe = session.subscribe((event) => {
      if (!traced || exported || event.type !== "assistant_message_started") return;
      const t = performance.now();
      exported = traced.flush();
      sum.handoff += performance.now() - t;
    });
    const cpu0 = cpuMs();
    const main0 = mainCpuMs();
    const wall0 = performance.now();
    session.submit({ text: "do many things" });
    await session.idle();
    sum.wall += performance.now() - wall0;
    unsubscribe();
    await exported;
    sum.cpu += cpuMs() - cpu0;
    sum.main += mainCpuMs() - main0;
    await session.close();
  }
  return { wall: sum.wall / ROUND_TURNS, cpu: sum.cpu / ROUND_TURNS, main: sum.main / ROUND_TURNS, handoff: sum.handoff / ROUND_TURNS };
}

const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = p * (s.length - 1);
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
};

/** Per-pair ratios (exporting / plain) of one figure: quartiles and a 95% confidence interval of the median (order statistics: no assumption about the spread's shape). */
interface Ratio {
  quartiles: [number, number, number];
  ci: [number, number];
}

function ratio(on: number[], off: number[]): Ratio {
  const sorted = on.map((x, i) => x / off[i]!).sort((a, b) => a - b);
  const reach = 0.98 * Math.sqrt(sorted.length);
  const ci: [number, number] = [sorted[Math.max(0, Math.floor(sorted.length / 2 - reach))]!, sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length / 2 + reach) - 1)]!];
  return { quartiles: [quantile(sorted, 0.25), quantile(sorted, 0.5), quantile(sorted, 0.75)], ci };
}

interface Comparison {
  /** Medians over pairs. */
  on: Figures;
  off: Figures;
  wall: Ratio;
  cpu: Ratio;
  main: Ratio;
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
  const pick = (xs: Figures[], key: keyof Figures) => xs.map((x) => x[key]);
  const med = (xs: Figures[]): Figures => ({ wall: quantile(pick(xs, "wall"), 0.5), cpu: quantile(pick(xs, "cpu"), 0.5), main: quantile(pick(xs, "main"), 0.5), handoff: quantile(pick(xs, "handoff"), 0.5) });
  return { on: med(on), off: med(off), wall: ratio(pick(on, "wall"), pick(off, "wall")), cpu: ratio(pick(on, "cpu"), pick(off, "cpu")), main: ratio(pick(on, "main"), pick(off, "main")) };
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
const spread = (r: Ratio) => `${pct(r.quartiles[1])} (95% CI ${pct(r.ci[0])} .. ${pct(r.ci[1])}; pairs' IQR ${pct(r.quartiles[0])} .. ${pct(r.quartiles[2])})`;
const report = (label: string, r: Comparison) =>
  [
    `  ${label}`,
    `    turn wall time (submit to idle): export ${r.on.wall.toFixed(1)} ms, none ${r.off.wall.toFixed(1)} ms; overhead ${spread(r.wall)}; the export's call during the turn ${r.on.handoff.toFixed(3)} ms of it`,
    `    process CPU (all threads but the JIT's; the worker's export included, no target): export ${r.on.cpu.toFixed(1)} ms, none ${r.off.cpu.toFixed(1)} ms; overhead ${spread(r.cpu)}`,
    `    the turn's thread's CPU: export ${r.on.main.toFixed(1)} ms, none ${r.off.main.toFixed(1)} ms; overhead ${spread(r.main)}`,
  ].join("\n");
console.log(`one turn of ${CALLS} tool calls (${CALLS + 1} provider requests, ${2 * CALLS + 2} spans), ${PROTOCOL}, exported by a worker thread; pairs of rounds of ${ROUND_TURNS} turns, ${WARMUP_PAIRS} warm-up pairs discarded; load average ${loadBefore} before, ${load()} after; receiver got ${stats.requests} OTLP requests (${(stats.bytes / 1024).toFixed(0)} KiB)`);
console.log(report(`provider over HTTP on 127.0.0.1, ${PAIRS} pairs (target: turn wall time <= 5% above none)`, loopback));
console.log(report(`provider in-process, engine alone, ${IN_PROCESS_PAIRS} pairs (worst case, no target)`, inProcess));
if (stats.requests === 0) console.log("FAIL telemetry overhead: the receiver got no spans, so nothing was measured");
else console.log(loopback.wall.quartiles[1] <= TARGET ? "PASS telemetry overhead" : "FAIL telemetry overhead");
