// bench/daemon: the session daemon's figures, each beside a reference measured in the same run.
// 1. Idle RSS of `agent daemon` (the compiled dist/agent, demo provider) after it is ready. Target <= 40 MB.
//    References: a bare Bun.serve compiled the same way, the floor of any daemon on this stack (the same
//    server plus a WAL bun:sqlite store and node:fs), and that floor giving its clean pages back after
//    listening as the daemon does after its ready line (src/platform/idle-trim.ts). Then what the release
//    costs (the first request after it) and RSS right after a demo turn. (Claude Code idles at about 360 MB.)
// 2. Replay of 100k records from cursor 0 over GET /events. Target >= 100k records/s.
//    Reference: a plain SQLite scan of the same rows.
// 3. 100 SSE subscribers while 1,000 records/s are published, daemon CPU (separate process). Target <= 25%
//    of one core. Reference: a minimal batched broadcast server with the same subscribers and bytes.
// 4. An idempotent prompt retry (stored result, nothing runs). Target p50 < 1 ms. Reference: GET /health.
// Run: bun run bench/daemon.ts [--secs 5]
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeFreshCredential } from "../src/daemon/credential.ts";
import { startDaemon } from "../src/daemon/serve.ts";
import { initSessionDir } from "../src/daemon/store/index.ts";
import { FakeEngine } from "../test/daemon/fake-engine.ts";
import { cpuSeconds } from "./lib/proc-cpu.ts";
import { rss, rssText } from "./lib/proc-memory.ts";
import { readyLine } from "./lib/ready-line.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECS = arg("secs", 5);
const BINARY = resolve(import.meta.dir, "../dist/agent");
const root = mkdtempSync(join(tmpdir(), "bench-daemon-"));
const env = { ...process.env, HOME: root, XDG_CONFIG_HOME: join(root, "cfg"), XDG_DATA_HOME: join(root, "data") };

const line = (ok: boolean, text: string) => console.log(`${ok ? "PASS" : "FAIL"} ${text}`);


async function child(script: string, args: string[] = []) {
  const proc = Bun.spawn(["bun", script, ...args], { env, stdout: "pipe", stderr: "inherit", stdin: "pipe" });
  return { proc, ready: await readyLine(proc) };
}

// ---- child modes: a daemon publishing at a rate, and the reference broadcast server ----
if (process.argv[2] === "--publisher" || process.argv[2] === "--reference") {
  const rate = 1000;
  const record = JSON.stringify({ type: "notice", level: "info", message: "x".repeat(150) });
  if (process.argv[2] === "--publisher") {
    const dir = join(root, "pub");
    const running = await startDaemon({ sessionDir: dir, project: root, credential: "dmn_bench-token-0123456789abcdefghijklmnop" });
    console.log(JSON.stringify({ port: running.server.port, pid: process.pid }));
    const hub = running.daemon.hub;
    setInterval(() => {
      for (let i = 0; i < rate / 100; i++) hub.publish(JSON.parse(record));
    }, 10);
  } else {
    const controllers = new Set<ReadableStreamDefaultController<string>>();
    let seq = 0;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(new ReadableStream<string>({ start: (c) => void controllers.add(c), cancel: () => {} }), { headers: { "Content-Type": "text/event-stream" } }),
      idleTimeout: 0,
    });
    console.log(JSON.stringify({ port: server.port, pid: process.pid }));
    setInterval(() => {
      let data = '{"records":[';
      for (let i = 0; i < rate / 100; i++) data += `${i ? "," : ""}{"version":1,"seq":"${++seq}","at":${Date.now()},${record.slice(1)}`;
      const frame = `id: ${seq}\nevent: records\ndata: ${data}]}\n\n`;
      for (const c of controllers) c.enqueue(frame);
    }, 10);
  }
} else {
  await run();
  process.exit(0);
}

/**
 * A one-file server compiled like the binary (bytecode, minified), started; `prelude` runs before it
 * listens. `released`: it gives its clean pages back after listening, as the daemon does after its ready line.
 */
async function compiledReference(name: string, prelude: string, released = false): Promise<{ proc: ReturnType<typeof Bun.spawn>; pid: number }> {
  const src = join(root, `${name}.ts`);
  const ready = `console.log(JSON.stringify({port:s.port,pid:process.pid}))`;
  const after = released ? `Bun.gc(true);releaseCleanPages().then(()=>${ready})` : ready;
  const importRelease = released ? `import{releaseCleanPages}from${JSON.stringify(resolve(import.meta.dir, "../src/platform/resident-pages.ts"))};` : "";
  writeFileSync(src, `${importRelease}${prelude}const s=Bun.serve({hostname:"127.0.0.1",port:0,fetch:()=>new Response("ok")});${after}`);
  Bun.spawnSync(["bun", "build", "--compile", "--bytecode", "--minify", src, "--outfile", join(root, name)], { stdout: "ignore", stderr: "inherit" });
  const proc = Bun.spawn([join(root, name)], { stdout: "pipe" });
  return { proc, pid: (await readyLine(proc)).pid };
}

/** The median of `n` timed calls, in ms. */
async function medianMs(n: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await fn();
    samples.push(performance.now() - s);
  }
  return samples.sort((a, b) => a - b)[samples.length >> 1]!;
}

async function run(): Promise<void> {
  // 1. Idle RSS
  const credDir = join(root, "cred");
  mkdirSync(credDir, { mode: 0o700 });
  const cred = join(credDir, "credential.json");
  const daemonToken = writeFreshCredential(cred);
  // What users run: the compiled binary (built when missing), beside a bare server compiled the same way.
  if (!existsSync(BINARY)) Bun.spawnSync(["bun", "run", resolve(import.meta.dir, "../build.ts")], { stdout: "inherit", stderr: "inherit" });
  const daemonProc = Bun.spawn([BINARY, "daemon", "--session-dir", join(root, "idle"), "--credential-file", cred, "--demo", "--project", root], { env, stdout: "pipe", stderr: "inherit", stdin: "pipe" });
  const daemon = { proc: daemonProc, ready: await readyLine(daemonProc) };
  const bare = await compiledReference("bare", "");
  // The runtime floor of any session daemon on this stack: the server plus a WAL SQLite store and file
  // access (node:fs), with none of our code.
  const floorPrelude = `import{Database}from"bun:sqlite";import{readFileSync}from"node:fs";const d=new Database(${JSON.stringify(join(root, "floor.db"))});d.exec("PRAGMA journal_mode=WAL;create table if not exists t(a)");d.query("select count(*) from t").get();readFileSync(${JSON.stringify(join(root, "floor.ts"))});`;
  const floor = await compiledReference("floor", floorPrelude);
  // The same floor giving its clean pages back as the daemon does: what the release does without our code.
  const floorReleased = await compiledReference("floor-released", floorPrelude, true);
  await Bun.sleep(2000);
  const idle = rss(daemon.ready.pid);
  const ref = rss(bare.pid);
  const floorRss = rss(floor.pid);
  const floorReleasedRss = rss(floorReleased.pid);
  for (const p of [bare, floor, floorReleased]) p.proc.kill();
  console.log(`idle RSS: agent daemon ${rssText(idle)}; references: bare Bun.serve ${rssText(ref)}, Bun.serve + bun:sqlite (WAL) + node:fs ${rssText(floorRss)}, the same giving its clean pages back as the daemon does ${rssText(floorReleasedRss)} (x${(idle.total / floorReleasedRss.total).toFixed(2)})`);
  line(idle.total <= 40, `idle daemon RSS ${idle.total.toFixed(1)} MB <= 40 MB`);
  // What the release costs and what work brings back: the first request after the idle release (its code
  // pages fault back in from the page cache) beside the warm ones, then a demo turn and RSS right after it.
  const daemonUrl = `http://127.0.0.1:${daemon.ready.port}`;
  const daemonAuth = { Authorization: `Bearer ${daemonToken}` };
  const sync = () => fetch(`${daemonUrl}/sync`, { headers: daemonAuth }).then((r) => r.arrayBuffer());
  let t0 = performance.now();
  await sync();
  const firstSync = performance.now() - t0;
  const warmSync = await medianMs(200, sync);
  t0 = performance.now();
  const accepted = await fetch(`${daemonUrl}/prompt`, { method: "POST", headers: { ...daemonAuth, "Content-Type": "application/json" }, body: JSON.stringify({ text: "hello" }) });
  if (accepted.status !== 202) throw new Error(`demo prompt: ${accepted.status} ${await accepted.text()}`);
  while (((await (await fetch(`${daemonUrl}/sync`, { headers: daemonAuth })).json()) as { turn: { busy: boolean } }).turn.busy) await Bun.sleep(5);
  const turnMs = performance.now() - t0;
  const working = rss(daemon.ready.pid);
  // Quiet again: the daemon gives memory back 5-10 s after work ends (idle-trim.ts).
  await Bun.sleep(11_000);
  const quietAgain = rss(daemon.ready.pid);
  daemon.proc.kill();
  console.log(`after the idle release: first GET /sync ${firstSync.toFixed(2)} ms, warm p50 ${warmSync.toFixed(3)} ms; right after a demo turn (${turnMs.toFixed(0)} ms) RSS ${rssText(working)}, 11 s later ${rssText(quietAgain)}`);
  line(quietAgain.total <= 40, `daemon RSS quiet again after a turn ${quietAgain.total.toFixed(1)} MB <= 40 MB`);

  // 2. Replay of 100k records
  const N = 100_000;
  const dir = join(root, "replay");
  const store = initSessionDir(dir, "ses_0000000000000000000000bench", { project: root });
  const body = { type: "notice", level: "info", message: "y".repeat(100) };
  for (let i = 0; i < N; i += 10_000) store.appendEvents(Array.from({ length: 10_000 }, () => body));
  let t = performance.now();
  let scanned = 0;
  for (const _ of store.journal.all()) scanned++;
  const scanRate = scanned / ((performance.now() - t) / 1000);
  store.close();
  const token = "dmn_bench-token-0123456789abcdefghijklmnop";
  const running = await startDaemon({ sessionDir: dir, credential: token, engineFactory: async ({ sessionId }) => ({ engine: new FakeEngine(sessionId) }) });
  const auth = { Authorization: `Bearer ${token}` };
  const origin = (await (await fetch(`${running.url}/sync`, { headers: auth })).json()).origin_cursor;
  t = performance.now();
  const res = await fetch(`${running.url}/events?after=${encodeURIComponent(origin)}`, { headers: auth });
  const reader = res.body!.getReader();
  let count = 0;
  let tail = "";
  const needle = '"version":1';
  while (count < N) {
    const { value } = await reader.read();
    const text = tail + new TextDecoder().decode(value);
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) count++;
    tail = text.slice(-needle.length + 1);
  }
  const replayRate = count / ((performance.now() - t) / 1000);
  await reader.cancel();
  console.log(`replay: ${Math.round(replayRate)} records/s over SSE; reference SQLite scan ${Math.round(scanRate)} rows/s (x${(replayRate / scanRate).toFixed(2)})`);
  line(replayRate >= 100_000, `replay of 100k records from cursor 0 at ${Math.round(replayRate)} records/s >= 100k/s`);

  // 4. Idempotent retry round trip
  const snap = await (await fetch(`${running.url}/sync`, { headers: auth })).json();
  const payload = JSON.stringify({ text: "once", operation_context: { daemon_epoch: snap.daemon_epoch, window: snap.operation_window.window, operation: crypto.randomUUID() } });
  const post = () => fetch(`${running.url}/prompt`, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: payload }).then((r) => r.arrayBuffer());
  const health = () => fetch(`${running.url}/health`, { headers: auth }).then((r) => r.arrayBuffer());
  await post();
  const time = (fn: () => Promise<unknown>) => medianMs(3000, fn);
  const retryP50 = (await time(post), await time(post));
  const healthP50 = await time(health);
  await running.stop();
  console.log(`retry round trip p50 ${retryP50.toFixed(3)} ms; reference GET /health p50 ${healthP50.toFixed(3)} ms (x${(retryP50 / healthP50).toFixed(2)})`);
  line(retryP50 < 1, `idempotent prompt retry p50 ${retryP50.toFixed(3)} ms < 1 ms`);

  // 3. Fan-out CPU
  const fan = async (mode: string) => {
    const c = await child(import.meta.path, [mode]);
    const base = `http://127.0.0.1:${c.ready.port}`;
    const headers = { Authorization: `Bearer ${token}` };
    const cursor = mode === "--publisher" ? (await (await fetch(`${base}/sync`, { headers })).json()).cursor : "";
    const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
    for (let i = 0; i < 100; i++) {
      const r = await fetch(`${base}/events?after=${encodeURIComponent(cursor)}`, { headers });
      readers.push(r.body!.getReader());
    }
    let bytes = 0;
    const drains = readers.map(async (r) => {
      for (;;) {
        const { value, done } = await r.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        bytes += value!.length;
      }
    });
    await Bun.sleep(500);
    const before = cpuSeconds(c.ready.pid);
    const start = performance.now();
    await Bun.sleep(SECS * 1000);
    const cpu = ((cpuSeconds(c.ready.pid) - before) / ((performance.now() - start) / 1000)) * 100;
    for (const r of readers) await r.cancel().catch(() => {});
    c.proc.kill();
    await Promise.race([Promise.all(drains), Bun.sleep(500)]);
    return { cpu, bytes };
  };
  const ours = await fan("--publisher");
  const reference = await fan("--reference");
  console.log(`fan-out 100 subscribers x 1000 records/s: daemon ${ours.cpu.toFixed(1)}% of a core, reference broadcast ${reference.cpu.toFixed(1)}% (x${(ours.cpu / reference.cpu).toFixed(2)})`);
  line(ours.cpu <= 25, `fan-out CPU ${ours.cpu.toFixed(1)}% <= 25% of one core`);
}
