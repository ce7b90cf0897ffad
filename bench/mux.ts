// bench/mux: the host protocol's mux (src/gateway/hosts/mux) on loopback, both ends in this process over a
// real Bun WebSocket, beside a direct Bun HTTP request measured in the same run, rounds interleaved.
// 1. p50/p99 latency of a small GET: through the mux to a handler answering in-process, vs fetch() to a
//    Bun.serve answering the same; and the path a front takes to a daemon on a joined host (mux, then the
//    host's fetch to the daemon) vs fetch() to the daemon directly. Target (issue 39): <= 1 ms added at p50.
// 2. Throughput of a 20 MiB response body through the mux vs fetch() of the same body.
// Run: bun run bench/mux.ts [--requests 2000] [--rounds 5]
import { muxWebSocket, upgradeToMux, type MuxSocketData } from "../src/gateway/hosts/mux/bun-server.ts";
import type { MuxConnection } from "../src/gateway/hosts/mux/connection.ts";
import { CONNECT_PATH, dial } from "../src/gateway/hosts/mux/dial.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const REQUESTS = arg("requests", 2000);
const ROUNDS = arg("rounds", 5);
const BIG = 20 * 1024 * 1024;
const big = new Uint8Array(BIG).fill(7);

// The "daemon": a plain Bun HTTP server.
const daemon = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => (new URL(r.url).pathname === "/big" ? new Response(big) : new Response("ok")) });
const daemonUrl = `http://127.0.0.1:${daemon.port}`;

// The front accepts the host's WebSocket; the host serves its side: in-process answers, or a fetch to the daemon.
let accepted!: Promise<MuxConnection>;
const front = Bun.serve<MuxSocketData>({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request, server) {
    const result = upgradeToMux(server, request, { side: "front", name: "bench-front" });
    if (result instanceof Response) return result;
    accepted = result;
    return undefined;
  },
  websocket: muxWebSocket,
});
const host = await dial(`http://127.0.0.1:${front.port}${CONNECT_PATH}`, { token: "hst_bench", hello: { side: "host", name: "bench-host" } });
const mux = await accepted;
host.serve(async (request) => {
  const path = new URL(request.url).pathname;
  if (path === "/local") return new Response("ok");
  if (path === "/big-local") return new Response(big);
  return fetch(daemonUrl + path.replace(/^\/daemon/, ""), { signal: request.signal });
});

async function timeRequests(n: number, one: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = Bun.nanoseconds();
    await one();
    times.push((Bun.nanoseconds() - start) / 1e6);
  }
  return times;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const paths = {
  "direct fetch (Bun.serve)": async () => void (await (await fetch(`${daemonUrl}/`)).text()),
  "mux, in-process handler": async () => void (await (await mux.fetch(new Request("http://host/local"))).text()),
  "mux, then host fetch to daemon": async () => void (await (await mux.fetch(new Request("http://host/daemon/"))).text()),
};
type PathName = keyof typeof paths;
const samples = Object.fromEntries(Object.keys(paths).map((k) => [k, [] as number[]])) as Record<PathName, number[]>;

// Warm-up, then interleaved rounds so machine load moves every path alike.
for (const one of Object.values(paths)) await timeRequests(200, one);
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, one] of Object.entries(paths) as [PathName, () => Promise<void>][]) samples[name].push(...(await timeRequests(Math.ceil(REQUESTS / ROUNDS), one)));
}
console.log(`small GET latency, ${REQUESTS} sequential requests per path (ms)`);
const p50: Record<string, number> = {};
for (const [name, times] of Object.entries(samples)) {
  const sorted = [...times].sort((a, b) => a - b);
  p50[name] = quantile(sorted, 0.5);
  console.log(`  ${name.padEnd(32)} p50 ${quantile(sorted, 0.5).toFixed(3)}  p99 ${quantile(sorted, 0.99).toFixed(3)}`);
}
const added = p50["mux, then host fetch to daemon"]! - p50["direct fetch (Bun.serve)"]!;
console.log(`  added by the mux on the way to a daemon: ${added.toFixed(3)} ms at p50 (target <= 1 ms): ${added <= 1 ? "PASS" : "FAIL"}`);

async function throughput(read: () => Promise<number>): Promise<number> {
  const start = Bun.nanoseconds();
  const bytes = await read();
  if (bytes !== BIG) throw new Error(`read ${bytes} bytes, expected ${BIG}`);
  return BIG / 1024 / 1024 / ((Bun.nanoseconds() - start) / 1e9);
}
const bodies = {
  "direct fetch": () => fetch(`${daemonUrl}/big`).then((r) => r.arrayBuffer()).then((b) => b.byteLength),
  "mux, in-process body": () => mux.fetch(new Request("http://host/big-local")).then((r) => r.arrayBuffer()).then((b) => b.byteLength),
  "mux, then host fetch to daemon": () => mux.fetch(new Request("http://host/daemon/big")).then((r) => r.arrayBuffer()).then((b) => b.byteLength),
};
const rates = Object.fromEntries(Object.keys(bodies).map((k) => [k, [] as number[]]));
for (let round = 0; round < ROUNDS; round++) for (const [name, read] of Object.entries(bodies)) rates[name]!.push(await throughput(read));
console.log(`20 MiB response body, median of ${ROUNDS} (MiB/s)`);
for (const [name, values] of Object.entries(rates)) console.log(`  ${name.padEnd(32)} ${median(values).toFixed(0)}`);

host.close();
mux.close();
front.stop(true);
daemon.stop(true);
