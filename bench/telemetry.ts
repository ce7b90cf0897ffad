// Turn overhead of trace export: blocks of engine sessions (one turn of 50 tool calls, so 102 spans)
// with the daemon's process tracer exporting to a local OTLP/HTTP receiver (each block ends with a flush,
// so its exports count), alternating with blocks without a telemetry block (the no-op tracer), in one
// run. The receiver and the provider run in their own processes, as a collector and a model would.
// Figures are CPU time of this process (user + system), which the other tenants of a shared machine
// disturb less than wall time; wall time is shown beside it.
//   1. provider over HTTP on 127.0.0.1 (answers instantly): the target, export <= 5% above none.
//   2. provider in-process (bench/turn-overhead.ts's harness): the engine alone, the worst case; shown
//      for information (the SDK's span recording and JSON encoding cost about 30 µs a span here).
import { startTelemetry } from "../src/telemetry/start.ts";
import type { Tracer } from "../src/telemetry/tracer.ts";
import { benchProject, loopbackProject, loopbackProvider, timedSession, type BenchProject } from "./lib/instant-session.ts";

const CALLS = 50;
const BLOCKS = Number(process.env.BENCH_RUNS ?? 8);
const SESSIONS_PER_BLOCK = 5;

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

const tracer = await startTelemetry({ block: { endpoint: url }, env: {}, role: "daemon" });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Figures {
  cpu: number;
  wall: number;
}

async function block(project: BenchProject, http: boolean, traced: Tracer | undefined): Promise<Figures> {
  Bun.gc(true);
  const cpu0 = cpuMs();
  const wall0 = performance.now();
  for (let i = 0; i < SESSIONS_PER_BLOCK; i++) await timedSession(project, CALLS, { ...(http ? { fetch: null } : {}), ...(traced ? { tracer: traced } : {}) });
  await traced?.flush();
  return { cpu: (cpuMs() - cpu0) / SESSIONS_PER_BLOCK, wall: (performance.now() - wall0) / SESSIONS_PER_BLOCK };
}

/** Half the interquartile range of the blocks without export, relative to their median: how far one block's figure strays on this machine now. */
const spread = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return (q(0.75) - q(0.25)) / 2 / median(xs);
};

async function compare(project: BenchProject, http: boolean): Promise<{ on: Figures; off: Figures; cpuRatio: number; wallRatio: number; noise: number }> {
  await block(project, http, tracer);
  await block(project, http, undefined);
  const on: Figures[] = [];
  const off: Figures[] = [];
  for (let i = 0; i < BLOCKS; i++) {
    // Alternating which goes first, so drift on a noisy machine hits both alike.
    if (i % 2) {
      on.push(await block(project, http, tracer));
      off.push(await block(project, http, undefined));
    } else {
      off.push(await block(project, http, undefined));
      on.push(await block(project, http, tracer));
    }
  }
  const m = (xs: Figures[]): Figures => ({ cpu: median(xs.map((x) => x.cpu)), wall: median(xs.map((x) => x.wall)) });
  const mOn = m(on);
  const mOff = m(off);
  return { on: mOn, off: mOff, cpuRatio: mOn.cpu / mOff.cpu, wallRatio: mOn.wall / mOff.wall, noise: spread(off.map((x) => x.cpu)) };
}

const loopback = await compare(loopbackProject("agent-bench-telemetry-http-", provider.base), true);
const inProcess = await compare(benchProject("agent-bench-telemetry-mem-"), false);
await tracer.shutdown();
const stats = (await (await fetch(`${url}/stats`)).json()) as { requests: number; bytes: number };
receiver.kill();
provider.stop();

const pct = (r: number) => `${((r - 1) * 100).toFixed(1)}%`;
const line = (label: string, r: Awaited<ReturnType<typeof compare>>) =>
  `  ${label}: export ${r.on.cpu.toFixed(1)} ms CPU / ${r.on.wall.toFixed(1)} ms wall per turn, none ${r.off.cpu.toFixed(1)} / ${r.off.wall.toFixed(1)}: overhead CPU ${pct(r.cpuRatio)}, wall ${pct(r.wallRatio)} (block spread ±${(r.noise * 100).toFixed(1)}%)`;
console.log(`one turn of ${CALLS} tool calls (${CALLS + 1} provider requests, ${2 * CALLS + 2} spans); ${BLOCKS} blocks of ${SESSIONS_PER_BLOCK} turns each way; receiver got ${stats.requests} OTLP requests (${(stats.bytes / 1024).toFixed(0)} KiB)`);
console.log(line("provider over HTTP on 127.0.0.1 (target <= 5% CPU)", loopback));
console.log(line("provider in-process, engine alone (worst case, no target)", inProcess));
if (stats.requests === 0) console.log("FAIL telemetry overhead: the receiver got no spans, so nothing was measured");
else console.log(loopback.cpuRatio <= 1.05 ? "PASS telemetry overhead" : "FAIL telemetry overhead");
