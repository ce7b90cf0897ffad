// bench/acp: from an editor's session/prompt to its first session/update chunk through `agent acp`,
// beside the daemon's own SSE for the same turn: a direct /events follower of the same session,
// attached in this process, clocks the turn's first streamed record from the same instant. The gap
// between the two is what the ACP hop adds (prompt relay, the agent's own SSE follow, translation, the
// stdio write). Target (issue 25): at most 5 ms more at p50.
// The model is the scripted `test` provider (no network); `agent acp` runs from source like an editor
// would start it. Run: bun run bench/acp.ts [--rounds 40]
import { client, ndJsonStream, type SessionNotification } from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import { DaemonClient } from "../src/client/daemon-client.ts";
import type { SyncRecord } from "../src/protocol/sync-record.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg("rounds", 40);
const WARMUP = 5;

const base = mkdtempSync(join(tmpdir(), "bench-acp-"));
const project = join(base, "proj");
mkdirSync(join(project, ".git"), { recursive: true });
mkdirSync(join(base, "config", "agent"), { recursive: true });
const script = join(base, "script.yaml");
const answer = "Here is a short answer streamed in a few words like a model would.";
writeFileSync(script, `responses:\n${`  - text: "${answer}"\n`.repeat(ROUNDS + WARMUP + 2)}`);
writeFileSync(join(base, "config", "agent", "config.yaml"), `providers:\n  offline: { kind: { type: catalog, name: test }, url: ${script} }\n`);
const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };

const child = spawn(process.execPath, [resolve(import.meta.dir, "../src/cli/main.ts"), "acp"], { cwd: project, env, stdio: ["pipe", "pipe", "inherit"] });
let firstChunk: ((at: number) => void) | null = null;
const app = client({ name: "bench-editor" }).onNotification("session/update", ({ params }: { params: SessionNotification }) => {
  if (params.update.sessionUpdate === "agent_message_chunk" && firstChunk) {
    const done = firstChunk;
    firstChunk = null;
    done(performance.now());
  }
});
const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>));
const ctx = connection.agent;
await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
const { sessionId } = await ctx.request("session/new", { cwd: project, mcpServers: [] });

// The daemon's own stream of the same session, followed directly.
const dir = join(env.XDG_DATA_HOME, "agent", "sessions", sessionId);
const port = (JSON.parse(readFileSync(join(dir, "daemon.json"), "utf8")) as { port: number }).port;
const token = (JSON.parse(readFileSync(join(dir, "credential.json"), "utf8")) as { token: string }).token;
const direct = new DaemonClient({ url: `http://127.0.0.1:${port}`, token });
let firstRecord: ((at: number) => void) | null = null;
const stop = new AbortController();
let ready!: () => void;
const following = new Promise<void>((r) => (ready = r));
void direct.follow(
  {
    onSnapshot: () => ready(),
    onRecords: (records: SyncRecord[]) => {
      const at = performance.now();
      if (firstRecord && records.some((r) => r.type === "part_delta" || r.type === "part_completed")) {
        const done = firstRecord;
        firstRecord = null;
        done(at);
      }
    },
  },
  stop.signal,
);
await following;

const viaAcp: number[] = [];
const viaSse: number[] = [];
for (let i = 0; i < ROUNDS + WARMUP; i++) {
  const chunk = new Promise<number>((r) => (firstChunk = r));
  const record = new Promise<number>((r) => (firstRecord = r));
  const t0 = performance.now();
  const turn = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `round ${i}` }] });
  const [a, s] = await Promise.all([chunk, record]);
  await turn;
  if (i >= WARMUP) {
    viaAcp.push(a - t0);
    viaSse.push(s - t0);
  }
}

const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const gaps = viaAcp.map((a, i) => a - viaSse[i]!);
const fmt = (n: number) => `${n.toFixed(2)} ms`;
console.log(`rounds: ${ROUNDS} (after ${WARMUP} warm-up), scripted test provider, load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
console.log(`prompt -> first chunk via ACP (session/update):   p50 ${fmt(pct(viaAcp, 50))}  p90 ${fmt(pct(viaAcp, 90))}`);
console.log(`prompt -> first record on the daemon's own SSE:    p50 ${fmt(pct(viaSse, 50))}  p90 ${fmt(pct(viaSse, 90))}`);
console.log(`ACP minus SSE, same turn:                          p50 ${fmt(pct(gaps, 50))}  p90 ${fmt(pct(gaps, 90))}`);
const pass = pct(gaps, 50) <= 5;
console.log(`${pass ? "PASS" : "FAIL"}: ACP adds ${fmt(pct(gaps, 50))} at p50 (target <= 5 ms)`);

stop.abort();
connection.close();
child.stdin!.end();
await new Promise((r) => child.once("exit", r));
const pid = (JSON.parse(readFileSync(join(dir, "daemon.json"), "utf8")) as { pid: number }).pid;
try {
  process.kill(pid, "SIGTERM");
} catch {
  // Already gone.
}
process.exit(0);
