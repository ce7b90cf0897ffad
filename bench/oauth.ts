// bench/oauth: the OAuth server's hot paths, each beside a reference measured in the same run.
// 1. client_credentials issuance: tokens/s from POST /api/v1/oauth/token (Basic auth, one SHA-256 secret
//    check, one insert). Target: at least 2,000 tokens/s (hydra: about 400/s, bound by bcrypt).
//    Reference: unauthenticated GET /api/v1/health requests/s, i.e. what the HTTP stack alone allows.
// 2. Bearer validation of `oat_` tokens: µs per check in the gateway's verifier, warm (cached) and cold
//    (every token seen for the first time: a database lookup). Target: under 0.1 ms per request.
//    Reference: the same for a personal access token (`pat_`), the path bench/gateway-auth measures.
//    Also the end-to-end cost: GET /api/v1/health with an `oat_` vs the same request without a token.
// The gateway runs as a separate process (`agent gateway serve` from source); the token limiter is raised
// for the run since the bench hammers the endpoint from one address.
// Run: bun run bench/oauth.ts [--secs 2] [--concurrency 16] [--rounds 5]
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseGatewayConfig } from "../src/gateway/config/load.ts";
import { createGatewayContext } from "../src/gateway/context.ts";
import { startGateway } from "./lib/gateway-process.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECS = arg("secs", 2);
const CONCURRENCY = arg("concurrency", 16);
const ROUNDS = arg("rounds", 5);

const main = resolve(import.meta.dir, "../src/cli/main.ts");
const dir = mkdtempSync(join(tmpdir(), "bench-oauth-"));
const config = join(dir, "gateway-config.yaml");
const yaml = `data_dir: ${join(dir, "data")}\nlisten: {address: 127.0.0.1, port: 0}\nauth:\n  oauth_token_rate_limit: {max_attempts: 1000000, window_secs: 60, lockout_secs: 60}\n`;
writeFileSync(config, yaml);
const env = { ...process.env, XDG_CONFIG_HOME: join(dir, "cfg"), XDG_DATA_HOME: join(dir, "xdg") };

function cli(args: string[]): { out: string; err: string } {
  const r = Bun.spawnSync(["bun", main, "gateway", ...args, "--config", config], { env });
  if (r.exitCode !== 0) throw new Error(`agent gateway ${args.join(" ")} failed: ${r.stderr}`);
  return { out: r.stdout.toString(), err: r.stderr.toString() };
}

const registered = cli(["client", "register", "bench", "--client-type", "confidential", "--scopes", "machine", "--json"]);
const clientId = (JSON.parse(registered.out) as { client_id: string }).client_id;
const secret = /(cs_\S+)/.exec(registered.err)![1]!;
const basic = `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`;
cli(["principal", "create", "bench"]);
const pat = cli(["token", "create", "bench", "--label", "bench"]).out.trim();

const { server, base } = await startGateway(main, config, env);

const issued: string[] = [];
async function rate(request: () => Promise<Response>, keep?: (body: string) => void): Promise<number> {
  let count = 0;
  const until = performance.now() + SECS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const res = await request();
        const body = await res.text();
        if (res.status !== 200) throw new Error(`unexpected ${res.status}: ${body.slice(0, 200)}`);
        keep?.(body);
        count++;
      }
    }),
  );
  return count / SECS;
}

const issue = () => fetch(`${base}/api/v1/oauth/token`, { method: "POST", headers: { Authorization: basic, "Content-Type": "application/x-www-form-urlencoded" }, body: "grant_type=client_credentials" });
const health = (headers: Record<string, string>) => () => fetch(`${base}/api/v1/health`, { headers });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await rate(health({})); // warm-up
const open: number[] = [];
const tokens: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  open.push(await rate(health({})));
  tokens.push(await rate(issue, (body) => issued.push((JSON.parse(body) as { access_token: string }).access_token)));
}
const issuance = median(tokens);
console.log(`health without token:                 ${median(open).toFixed(0)} req/s (reference: the HTTP stack alone)`);
console.log(`client_credentials token issuance:    ${issuance.toFixed(0)} tokens/s (target >= 2000) ${issuance >= 2000 ? "PASS" : "FAIL"}`);

// Bearer validation inside the verifier, on a second connection to the same database (as the admin CLI).
const ctx = await createGatewayContext({ config: parseGatewayConfig(yaml, config), env });
const perCheckUs = async (header: string, n: number) => {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) if (typeof (await ctx.bearer.check(header)) === "string") throw new Error("token rejected");
  return ((performance.now() - t0) / n) * 1000;
};
const coldUs = async (tokensToCheck: string[]) => {
  const t0 = performance.now();
  for (const t of tokensToCheck) if (typeof (await ctx.bearer.check(`Bearer ${t}`)) === "string") throw new Error("token rejected");
  return ((performance.now() - t0) / tokensToCheck.length) * 1000;
};
const oat = issued[issued.length - 1]!;
await perCheckUs(`Bearer ${oat}`, 20_000);
await perCheckUs(`Bearer ${pat}`, 20_000);
const repeat = async (n: number, f: () => Promise<number>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await f());
  return out;
};
const warmOat = median(await repeat(3, () => perCheckUs(`Bearer ${oat}`, 100_000)));
const warmPat = median(await repeat(3, () => perCheckUs(`Bearer ${pat}`, 100_000)));
const cold = await coldUs(issued.slice(0, Math.min(issued.length - 1, 20_000)));
// A PAT is one token; its cold figure is the first check after a write clears the cache, repeated.
// The bench's gateway is SQLite (its config names no database.url), so the context has the connection.
const sqlite = ctx.sqlite!;
const patCold = median(
  await repeat(200, () => {
    sqlite.run("UPDATE principals SET updated_at = updated_at WHERE username = 'bench'");
    return perCheckUs(`Bearer ${pat}`, 1);
  }),
);
console.log(`oat_ validation, cached:              ${warmOat.toFixed(2)} µs per check (reference pat_: ${warmPat.toFixed(2)} µs)`);
console.log(`oat_ validation, first sight (db):    ${cold.toFixed(2)} µs per check (reference pat_: ${patCold.toFixed(2)} µs) (target < 100 µs) ${cold < 100 && warmOat < 100 ? "PASS" : "FAIL"}`);
await ctx.db.close();

const withOat: number[] = [];
const without: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  without.push(await rate(health({ "X-Reference": `Bearer ${oat}` })));
  withOat.push(await rate(health({ Authorization: `Bearer ${oat}` })));
}
const perRequestUs = (1 / median(withOat) - 1 / median(without)) * 1e6;
console.log(`health with an oat_ vs same-size ignored header: ${median(withOat).toFixed(0)} vs ${median(without).toFixed(0)} req/s (${perRequestUs.toFixed(1)} µs added per request, informational: client and server share the cores)`);

server.kill("SIGTERM");
await server.exited;
