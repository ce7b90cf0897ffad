// bench/oauth: the OAuth server's hot paths on SQLite and on PostgreSQL, side by side in the same run
// (rounds interleaved, so both see the same machine load), each beside a reference.
// 1. client_credentials issuance: tokens/s from POST /api/v1/oauth/token (Basic auth, one SHA-256 secret
//    check, group-committed inserts) with --concurrency clients (default 16: machines of a fleet asking at
//    once, each one request at a time on a kept-alive connection). Target: at least 2,000 tokens/s on both
//    (hydra: about 400/s, bound by bcrypt). Reference: unauthenticated GET /api/v1/health requests/s.
// 2. Bearer validation of `oat_` tokens: µs per check in the gateway's verifier, warm (cached) and cold
//    (every token seen for the first time: a database lookup). Target: under 0.1 ms per request on SQLite.
//    Reference: the same for a personal access token (`pat_`), the path bench/gateway-auth measures.
// 3. Audit insert and refresh-token rotation: µs per operation one at a time, and operations/s with
//    --concurrency callers, through the gateway's own classes on a context of the bench's (as the admin
//    CLI opens one).
// Target for every operation: PostgreSQL within 3x of SQLite.
// The gateways run as separate processes (`agent gateway serve` from source); the token limiter is raised
// for the run since the bench hammers the endpoint from one address.
// Run: bun run bench/oauth.ts [--secs 2] [--concurrency 16] [--rounds 5] [--dialect sqlite|pg]
import { eq } from "drizzle-orm";
import { parseGatewayConfig } from "../src/gateway/config/load.ts";
import { createGatewayContext, type GatewayContext } from "../src/gateway/context.ts";
import { first } from "../src/gateway/db/handle.ts";
import { OAuthTokens } from "../src/gateway/oauth/tokens.ts";
import { benchDialects, benchGateway, DIALECT_NAMES, median, printSideBySide, type BenchGateway, type Dialect, type Row } from "./lib/dialects.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECS = arg("secs", 2);
const CONCURRENCY = arg("concurrency", 16);
const ROUNDS = arg("rounds", 5);
const TOKEN_TARGET = 2000;

interface Setup {
  dialect: Dialect;
  gw: BenchGateway;
  base: string;
  basic: string;
  clientId: string;
  pat: string;
  stop(): Promise<void>;
}

async function setUp(dialect: Dialect): Promise<Setup> {
  const gw = await benchGateway(dialect, "bench-oauth", "  oauth_token_rate_limit: {max_attempts: 1000000, window_secs: 60, lockout_secs: 60}");
  const registered = gw.cli(["client", "register", "bench", "--client-type", "confidential", "--scopes", "machine", "--json"]);
  const clientId = (JSON.parse(registered.out) as { client_id: string }).client_id;
  const secret = /(cs_\S+)/.exec(registered.err)![1]!;
  gw.cli(["principal", "create", "bench"]);
  const pat = gw.cli(["token", "create", "bench", "--label", "bench"]).out.trim();
  const { server, base } = await gw.serve();
  const basic = `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`;
  return { dialect, gw, base, basic, clientId, pat, stop: async () => (server.kill("SIGTERM"), void (await server.exited)) };
}

/** Operations/s of `op` run by `CONCURRENCY` callers for `SECS` seconds. */
async function rate(op: () => Promise<void>): Promise<number> {
  let count = 0;
  const until = performance.now() + SECS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await op();
        count++;
      }
    }),
  );
  return count / SECS;
}

/** µs per call of `op`, one at a time. */
async function perCallUs(n: number, op: (i: number) => Promise<void>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await op(i);
  return ((performance.now() - t0) / n) * 1000;
}

const ok = async (res: Response) => {
  const body = await res.text();
  if (res.status !== 200) throw new Error(`unexpected ${res.status}: ${body.slice(0, 200)}`);
  return body;
};

const dialects = benchDialects();
const setups: Setup[] = [];
for (const d of dialects) setups.push(await setUp(d));
const issued = new Map<Dialect, string[]>(dialects.map((d) => [d, []]));
const issue = (s: Setup) => async () => {
  const res = await fetch(`${s.base}/api/v1/oauth/token`, { method: "POST", headers: { Authorization: s.basic, "Content-Type": "application/x-www-form-urlencoded" }, body: "grant_type=client_credentials" });
  issued.get(s.dialect)!.push((JSON.parse(await ok(res)) as { access_token: string }).access_token);
};
const health = (s: Setup, headers: Record<string, string> = {}) => async () => void (await ok(await fetch(`${s.base}/api/v1/health`, { headers })));

/** Per dialect, the median over rounds of `measure`; rounds alternate between the dialects. */
async function interleaved(rounds: number, measure: (s: Setup) => Promise<number>): Promise<Partial<Record<Dialect, number>>> {
  const samples = new Map<Dialect, number[]>(dialects.map((d) => [d, []]));
  for (let i = 0; i < rounds; i++) for (const s of setups) samples.get(s.dialect)!.push(await measure(s));
  return Object.fromEntries([...samples].map(([d, xs]) => [d, median(xs)]));
}

for (const s of setups) await rate(health(s)); // warm-up
const openRate = await interleaved(ROUNDS, (s) => rate(health(s)));
const issuance = await interleaved(ROUNDS, (s) => rate(issue(s)));

// In-process operations on a context of the bench's own (a second connection or pool, as the admin CLI
// opens), with the gateway's own classes.
const contexts = new Map<Dialect, GatewayContext>();
for (const s of setups) contexts.set(s.dialect, await createGatewayContext({ config: parseGatewayConfig(s.gw.yaml, s.gw.config), env: s.gw.env }));
const ctxOf = (s: Setup) => contexts.get(s.dialect)!;
const accepted = async (ctx: GatewayContext, header: string) => {
  if (typeof (await ctx.bearer.check(header)) === "string") throw new Error("token rejected");
};

for (const s of setups) {
  await perCallUs(5_000, () => accepted(ctxOf(s), `Bearer ${issued.get(s.dialect)!.at(-1)!}`));
  await perCallUs(5_000, () => accepted(ctxOf(s), `Bearer ${s.pat}`));
}
const CHECKS = 20_000;
const warmOat = await interleaved(3, (s) => perCallUs(CHECKS, () => accepted(ctxOf(s), `Bearer ${issued.get(s.dialect)!.at(-1)!}`)));
const warmPat = await interleaved(3, (s) => perCallUs(CHECKS, () => accepted(ctxOf(s), `Bearer ${s.pat}`)));
// Cold: each token checked for the first time (the newest one is the warm one, left out).
const coldOat = await interleaved(1, (s) => {
  const tokens = issued.get(s.dialect)!.slice(0, -1).slice(0, CHECKS);
  return perCallUs(tokens.length, (i) => accepted(ctxOf(s), `Bearer ${tokens[i]!}`));
});

const audit = (s: Setup) => (i: number) => ctxOf(s).audit.record({ action: "bench.event", outcome: "success", sourceIp: "127.0.0.1", target: `target-${i}`, detail: "an audit event of the usual size, written by bench/oauth" });
const auditUs = await interleaved(3, (s) => perCallUs(2_000, audit(s)));
const auditRate = await interleaved(3, (s) => {
  let i = 0;
  return rate(() => audit(s)(i++));
});

// Refresh rotation: a grant with a refresh family per caller, each rotated again and again (every rotation
// is the single-winner claim of the old token plus an access and a refresh token, in one transaction).
const refresher = async (s: Setup) => {
  const ctx = ctxOf(s);
  const tokens = new OAuthTokens(ctx.db, ctx.clock, ctx.config.auth.oauth);
  const { oauthClients } = ctx.db.t;
  const principalId = (await first(ctx.db.select({ p: oauthClients.principalId }).from(oauthClients).where(eq(oauthClients.id, s.clientId))))!.p!;
  let { tokens: current } = await tokens.issueGrant(s.clientId, principalId, ["machine"], true);
  return async () => {
    current = await tokens.refresh(s.clientId, current.refresh_token!, undefined, async () => {
      throw new Error("a rotated refresh token was refused as reused");
    });
  };
};
const refreshUs = await interleaved(3, async (s) => {
  const rotate = await refresher(s);
  return perCallUs(1_000, rotate);
});
const refreshRate = await interleaved(3, async (s) => {
  const families = await Promise.all(Array.from({ length: CONCURRENCY }, () => refresher(s)));
  let count = 0;
  const until = performance.now() + SECS * 1000;
  await Promise.all(
    families.map(async (rotate) => {
      while (performance.now() < until) {
        await rotate();
        count++;
      }
    }),
  );
  return count / SECS;
});
for (const ctx of contexts.values()) await ctx.db.close();

const withOat = await interleaved(ROUNDS, (s) => rate(health(s, { Authorization: `Bearer ${issued.get(s.dialect)!.at(-1)!}` })));
const withPadding = await interleaved(ROUNDS, (s) => rate(health(s, { "X-Reference": `Bearer ${issued.get(s.dialect)!.at(-1)!}` })));
const addedUs = Object.fromEntries(dialects.map((d) => [d, (1 / withOat[d]! - 1 / withPadding[d]!) * 1e6]));

const tokenTarget = (v: number | undefined) => (v === undefined ? "" : `${v >= TOKEN_TARGET ? "PASS" : "FAIL"}`);
const rows: Row[] = [
  { name: "client_credentials issuance (HTTP)", unit: "tokens/s", higherIsBetter: true, values: issuance, note: `(target >= ${TOKEN_TARGET}/s: ${dialects.map((d) => `${DIALECT_NAMES[d]} ${tokenTarget(issuance[d])}`).join(", ")})` },
  { name: "oat_ check, cached", unit: "µs", higherIsBetter: false, values: warmOat },
  { name: "oat_ check, first sight (db)", unit: "µs", higherIsBetter: false, values: coldOat },
  { name: "pat_ check, cached", unit: "µs", higherIsBetter: false, values: warmPat },
  { name: "audit insert, one at a time", unit: "µs", higherIsBetter: false, values: auditUs },
  { name: `audit insert, ${CONCURRENCY} callers`, unit: "inserts/s", higherIsBetter: true, values: auditRate },
  { name: "refresh rotation, one at a time", unit: "µs", higherIsBetter: false, values: refreshUs },
  { name: `refresh rotation, ${CONCURRENCY} families`, unit: "rot/s", higherIsBetter: true, values: refreshRate },
];
console.log(`bench/oauth: ${CONCURRENCY} concurrent callers, ${SECS} s per rate, medians of ${ROUNDS} rounds (rates over HTTP) or 3 (in-process)`);
printSideBySide(rows, 3);
console.log(`reference, health without token (HTTP): ${dialects.map((d) => `${DIALECT_NAMES[d]} ${openRate[d]!.toFixed(0)} req/s`).join(", ")} (the HTTP stack alone)`);
console.log(`health with an oat_ vs same-size ignored header: ${dialects.map((d) => `${DIALECT_NAMES[d]} ${withOat[d]!.toFixed(0)} vs ${withPadding[d]!.toFixed(0)} req/s (${addedUs[d]!.toFixed(1)} µs added)`).join(", ")} (informational: client and server share the cores)`);
const sqliteOk = warmOat.sqlite === undefined || (warmOat.sqlite < 100 && coldOat.sqlite! < 100);
if (warmOat.sqlite !== undefined) console.log(`oat_ validation on SQLite under 100 µs, cached and first sight: ${sqliteOk ? "PASS" : "FAIL"}`);

for (const s of setups) await s.stop();
