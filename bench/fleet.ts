// bench/fleet: the gateway's fleet figures, each beside a reference measured in the same run.
// 1. GET /api/v1/catalog with 1,000 registered sessions (and 50 projects): a new snapshot's first page and
//    a later page of it. Target: p50 < 50 ms. Reference: a bare SQLite query of the same rows plus
//    JSON.stringify, in this process.
// 2. The observer at 200 running sessions whose daemons are faked at the HTTP level by this script
//    (one Bun.serve each, answering GET /sync/summary with the session's credential). Target: every
//    running row stays fresh (observed within 15 s, never `stale`) while the catalog is sampled every
//    second. Reference: one round of the same 200 requests by a bare fetch loop, 8 at a time.
// 3. Fleet event appends to the journal in the database (one transaction each: read what others appended,
//    insert, write the text), on SQLite and on PostgreSQL side by side. Reference: a bare insert of the
//    same row in its own transaction on the same database.
// The gateway runs as a separate process (`agent gateway serve` from source). Rows are inserted through a
// second database connection after it started (the session supervisor would otherwise reconcile them).
// Run: bun run bench/fleet.ts [--samples 30] [--requests 50] [--appends 500]
import { Database } from "bun:sqlite";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DB_FILE, openGatewayDb } from "../src/gateway/db/open.ts";
import { openGatewayPg } from "../src/gateway/db/open-pg.ts";
import type { GatewayDb } from "../src/gateway/db/handle.ts";
import { FleetJournal } from "../src/gateway/fleet/journal.ts";
import { FLEET_LIMITS } from "../src/gateway/fleet/limits.ts";
import { TokenSigner } from "../src/protocol/tokens.ts";
import { systemClock } from "../src/util/clock.ts";
import { freshPgDatabase, PG_MISSING } from "../test/helpers/postgres.ts";
import { startGateway } from "./lib/gateway-process.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SAMPLES = arg("samples", 30);
const REQUESTS = arg("requests", 50);
const APPENDS = arg("appends", 500);
const SESSIONS = 1000;
const RUNNING = 200;
const PROJECTS = 50;

const main = resolve(import.meta.dir, "../src/cli/main.ts");
const dir = mkdtempSync(join(tmpdir(), "bench-fleet-"));
const config = join(dir, "gateway-config.yaml");
writeFileSync(config, `data_dir: ${join(dir, "data")}\nlisten: {address: 127.0.0.1, port: 0}\nauth: {}\n`);
const env = { ...process.env, XDG_CONFIG_HOME: join(dir, "cfg"), XDG_DATA_HOME: join(dir, "xdg") };

function cli(args: string[]): string {
  const r = Bun.spawnSync(["bun", main, "gateway", ...args, "--config", config], { env });
  if (r.exitCode !== 0) throw new Error(`agent gateway ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout.toString();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const line = (ok: boolean, text: string) => console.log(`${ok ? "PASS" : "FAIL"} ${text}`);

cli(["principal", "create", "bench"]);
const pat = cli(["token", "create", "bench", "--label", "bench"]).trim();
const { server, base } = await startGateway(main, config, env);
const auth = { Authorization: `Bearer ${pat}` };

// Fake daemons: one loopback server per running session, each checking its own credential.
const requestTimes: number[] = [];
const daemons = Array.from({ length: RUNNING }, (_, i) => {
  const token = `dmn_bench-fleet-${String(i).padStart(4, "0")}-0123456789abcdefghijklmnop`;
  const sessionDir = join(dir, "sessions", `s${i}`);
  mkdirSync(sessionDir, { recursive: true, mode: 0o700 });
  chmodSync(sessionDir, 0o700);
  writeFileSync(join(sessionDir, "credential.json"), JSON.stringify({ token }), { mode: 0o600 });
  const body = JSON.stringify({ version: 1, daemon_epoch: `ep${i}`, cursor: `c${i}`, busy: i % 2 === 0, attention: false, history_checkpoint: "", history_total_items: 0 });
  const srv = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      if (req.headers.get("authorization") !== `Bearer ${token}`) return new Response("unauthorized", { status: 401 });
      requestTimes.push(performance.now());
      return new Response(body, { headers: { "Content-Type": "application/json" } });
    },
  });
  return { srv, sessionDir, token };
});

const db = new Database(join(dir, "data", DB_FILE));
db.exec("PRAGMA busy_timeout = 5000");
try {
  const now = Date.now();
  db.transaction(() => {
    db.run("INSERT INTO configurations (name, format, created_at, updated_at) VALUES ('bench', 'yaml', ?, ?)", [now, now]);
    for (let p = 0; p < PROJECTS; p++) db.run("INSERT INTO projects (id, path, config_name, registered_at, updated_at) VALUES (?, ?, 'bench', ?, ?)", [p.toString(16).padStart(8, "0"), `/srv/projects/project-${p}`, now, now]);
    for (let i = 0; i < SESSIONS; i++) {
      const running = i < RUNNING;
      db.run("INSERT INTO sessions (id, project_id, launch_mode, state, port, session_dir, daemon_epoch, created_at, updated_at) VALUES (?, ?, 'project_direct', ?, ?, ?, ?, ?, ?)", [
        `ses_bench${String(i).padStart(21, "0")}`,
        (i % PROJECTS).toString(16).padStart(8, "0"),
        running ? "running" : "stopped",
        running ? daemons[i]!.srv.port! : null,
        running ? daemons[i]!.sessionDir : join(dir, "sessions", `stopped${i}`),
        `ep${i}`,
        now,
        now,
      ]);
    }
  })();

  // 1. Catalog pages.
  async function timed(url: string): Promise<{ ms: number; body: any; bytes: number }> {
    const t = performance.now();
    const res = await fetch(url, { headers: auth });
    const text = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text}`);
    return { ms, body: JSON.parse(text), bytes: text.length };
  }
  for (let i = 0; i < 5; i++) await timed(`${base}/api/v1/catalog`);
  const firstPages: number[] = [];
  const laterPages: number[] = [];
  let first: any;
  for (let i = 0; i < REQUESTS; i++) {
    const r = await timed(`${base}/api/v1/catalog`);
    firstPages.push(r.ms);
    first = r.body;
    laterPages.push((await timed(`${base}/api/v1/catalog?snapshot=${encodeURIComponent(first.snapshot)}&page=${first.page.count - 1}`)).ms);
  }
  const reference: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    const rows = db.query("SELECT id, project_id, launch_mode, state, daemon_epoch, port, session_dir, updated_at FROM sessions ORDER BY id").all();
    const projects = db.query("SELECT id, path, config_name, registered_at, updated_at FROM projects ORDER BY id").all();
    JSON.stringify({ projects, sessions: rows });
    reference.push(performance.now() - t);
  }
  console.log(`catalog: ${first.page.total_projects} projects, ${first.page.total_sessions} sessions, ${first.page.count} pages of at most 200 entries`);
  console.log(`  reference: bare SQLite query + JSON.stringify of every row: p50 ${median(reference).toFixed(2)} ms`);
  line(median(firstPages) < 50, `new snapshot, first page (HTTP): p50 ${median(firstPages).toFixed(2)} ms (target < 50 ms; ${(median(firstPages) / median(reference)).toFixed(1)}x the reference)`);
  line(median(laterPages) < 50, `later page of a snapshot (HTTP): p50 ${median(laterPages).toFixed(2)} ms (target < 50 ms)`);

  // 2. Observer freshness: sample the catalog every second; every running row must be observed and fresh.
  let worstAge = 0;
  let staleSeen = 0;
  let unobserved = 0;
  const t0 = Date.now();
  for (let s = 0; s < SAMPLES; s++) {
    await Bun.sleep(1000);
    const sessions: any[] = [];
    const snap = (await timed(`${base}/api/v1/catalog`)).body;
    sessions.push(...snap.sessions);
    for (let p = 1; p < snap.page.count; p++) sessions.push(...(await timed(`${base}/api/v1/catalog?snapshot=${encodeURIComponent(snap.snapshot)}&page=${p}`)).body.sessions);
    const sampledAt = Date.now();
    // The first round starts up to 5 s after the rows appear: judge freshness once it had the chance.
    if (sampledAt - t0 < 6000) continue;
    for (const row of sessions.filter((r) => r.state === "running")) {
      if (row.stale) staleSeen++;
      if (!row.observed_at) unobserved++;
      else worstAge = Math.max(worstAge, sampledAt - Date.parse(row.observed_at));
    }
  }
  // Rounds as the fake daemons saw them: requests more than 2 s apart start a new round.
  const rounds: number[][] = [];
  for (const t of requestTimes) {
    if (rounds.length === 0 || t - rounds.at(-1)!.at(-1)! > 2000) rounds.push([]);
    rounds.at(-1)!.push(t);
  }
  const roundMs = rounds.filter((r) => r.length >= RUNNING).map((r) => r.at(-1)! - r[0]!);
  const bare: number[] = [];
  for (let k = 0; k < 5; k++) {
    const t = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < RUNNING) {
          const d = daemons[next++]!;
          await (await fetch(`http://127.0.0.1:${d.srv.port}/sync/summary`, { headers: { Authorization: `Bearer ${d.token}` } })).text();
        }
      }),
    );
    bare.push(performance.now() - t);
  }
  console.log(`observer: ${RUNNING} running sessions, ${SAMPLES} catalog samples over ${((Date.now() - t0) / 1000).toFixed(0)} s, ${rounds.length} rounds seen by the daemons`);
  console.log(`  reference: one bare round of ${RUNNING} summary requests, 8 at a time: p50 ${median(bare).toFixed(1)} ms`);
  console.log(`  observer round (first to last request): p50 ${roundMs.length ? median(roundMs).toFixed(1) : "n/a"} ms`);
  line(staleSeen === 0 && unobserved === 0 && worstAge < 15_000, `every running row fresh: oldest observation ${(worstAge / 1000).toFixed(1)} s (target < 15 s), stale rows seen ${staleSeen}, unobserved ${unobserved}`);
} finally {
  server.kill();
  await server.exited;
  for (const d of daemons) d.srv.stop(true);
  db.close();
}

// 3. Journal appends per dialect, in this process.
async function appendRates(db: GatewayDb): Promise<{ appends: number; bare: number }> {
  const journal = new FleetJournal("fle_bench", db, new TokenSigner(new Uint8Array(32), "fleet", "fle_bench"), systemClock, FLEET_LIMITS);
  await journal.catchUp();
  const project = { project_id: "0000aaaa", path: "/srv/projects/bench", config_name: "bench", registered_at: new Date().toISOString(), updated_at: "" };
  let t = performance.now();
  for (let i = 0; i < APPENDS; i++) await journal.append(async () => ({ type: "project_upserted", project: { ...project, updated_at: new Date(i).toISOString() } }));
  const appends = APPENDS / ((performance.now() - t) / 1000);
  const text = JSON.stringify({ version: 1, fleet_epoch: "fle_bench", cursor: "x".repeat(90), at: new Date().toISOString(), type: "project_upserted", project });
  t = performance.now();
  for (let i = 0; i < APPENDS; i++) await db.tx(async (tx) => void (await tx.insert(tx.t.fleetEvents).values({ at: Date.now(), body: text, bytes: text.length })));
  const bare = APPENDS / ((performance.now() - t) / 1000);
  return { appends, bare };
}
const sqlite = openGatewayDb(mkdtempSync(join(tmpdir(), "bench-fleet-journal-")));
const rates: [string, { appends: number; bare: number }][] = [["SQLite", await appendRates(sqlite.db)]];
await sqlite.db.close();
if (PG_MISSING) console.log(`journal on PostgreSQL: skipped (${PG_MISSING})`);
else {
  const pg = await openGatewayPg(await freshPgDatabase());
  rates.push(["PostgreSQL", await appendRates(pg.db)]);
  await pg.db.close();
}
console.log(`journal: ${APPENDS} fleet event appends, one transaction each`);
for (const [name, r] of rates) console.log(`  ${name.padEnd(10)} ${r.appends.toFixed(0)} appends/s (reference: bare insert in a transaction ${r.bare.toFixed(0)}/s; ${(r.bare / r.appends).toFixed(1)}x)`);
