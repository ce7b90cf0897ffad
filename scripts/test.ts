// `bun run test`: builds dist/agent, runs the whole suite (the gateway on SQLite), then the gateway suite a
// second time on PostgreSQL (AGENT_TEST_DB=pg: every test gateway on a fresh database of a real server,
// test/helpers/postgres.ts). Arguments go to both runs: paths narrow them (the PostgreSQL run keeps those
// under test/gateway, and is left out when none are), `--reporter-outfile=F` gives the PostgreSQL run its own
// report next to F (F with `-pg` before its extension; .ci/run sums both). Where PostgreSQL is not installed
// the second run is skipped with the reason, as the suite's own PostgreSQL tests are.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const GATEWAY = "test/gateway";
const PG_ROOT = "/usr/lib/postgresql";

// `bun test` options whose value may be the next argument; those with an optional value (--bail,
// --parallel, --changed) take it only as `--option=value`.
const VALUE_OPTIONS = new Set(["--timeout", "--reporter", "--reporter-outfile", "-t", "--test-name-pattern", "--rerun-each", "--retry", "--preload", "--coverage-dir", "--coverage-reporter", "--seed", "--max-concurrency", "--path-ignore-patterns", "--shard", "--timings", "--parallel-delay"]);

const paths: string[] = [];
const flags: string[] = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]!;
  if (!a.startsWith("-")) paths.push(a);
  else if (VALUE_OPTIONS.has(a) && i + 1 < argv.length) flags.push(a, argv[++i]!);
  else flags.push(a);
}

function run(argv: string[], env: Record<string, string> = {}): number {
  const r = Bun.spawnSync(argv, { stdio: ["inherit", "inherit", "inherit"], env: { ...process.env, ...env } });
  return r.exitCode ?? 1;
}

/** The report file of the PostgreSQL run: `junit.xml` -> `junit-pg.xml`. */
function pgReport(file: string): string {
  return /\.[^./]+$/.test(file) ? file.replace(/(\.[^./]+)$/, "-pg$1") : `${file}-pg`;
}

const build = run(["bun", "run", "build.ts"]);
if (build !== 0) process.exit(build);

let status = run(["bun", "test", "--timeout", "30000", ...flags, ...paths]);

const gatewayPaths = paths.length === 0 ? [GATEWAY] : paths.filter((p) => p.replace(/^\.\//, "").startsWith(GATEWAY));
const pgInstalled = existsSync(PG_ROOT) && readdirSync(PG_ROOT).some((v) => existsSync(join(PG_ROOT, v, "bin", "pg_ctl")));
if (gatewayPaths.length > 0) {
  if (!pgInstalled) {
    console.warn("skipping the gateway suite on PostgreSQL: PostgreSQL is not installed (apt-get install -y postgresql)");
  } else {
    console.log(`\nThe gateway suite on PostgreSQL (AGENT_TEST_DB=pg): ${gatewayPaths.join(" ")}`);
    const pgFlags = flags.map((f, i) => {
      if (f.startsWith("--reporter-outfile=")) return `--reporter-outfile=${pgReport(f.slice("--reporter-outfile=".length))}`;
      return flags[i - 1] === "--reporter-outfile" ? pgReport(f) : f;
    });
    status = run(["bun", "test", "--timeout", "30000", ...pgFlags, ...gatewayPaths], { AGENT_TEST_DB: "pg" }) || status;
  }
}
process.exit(status);
