// One benchmark gateway per storage dialect, set up alike, so a bench can measure SQLite and PostgreSQL in
// the same run and print them side by side. The PostgreSQL server is the tests' (test/helpers/postgres.ts:
// Debian's package, started on a loopback port, stopped when this process exits); like the gateway's SQLite
// (WAL, synchronous=NORMAL) it does not wait for the disk at commit (synchronous_commit=off).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { freshPgDatabase, PG_MISSING } from "../../test/helpers/postgres.ts";
import { startGateway } from "./gateway-process.ts";

export type Dialect = "sqlite" | "pg";
export const DIALECT_NAMES: Record<Dialect, string> = { sqlite: "SQLite", pg: "PostgreSQL" };

export interface BenchGateway {
  dialect: Dialect;
  /** The config file's text (parseGatewayConfig(yaml, config) for an in-process context). */
  yaml: string;
  config: string;
  env: Record<string, string | undefined>;
  /** Runs `agent gateway ARGS --config CONFIG` from source; throws on a non-zero exit. */
  cli(args: string[], stdin?: string): { out: string; err: string };
  /** Starts `agent gateway serve`. */
  serve(): Promise<{ server: Subprocess; base: string }>;
}

export const MAIN = resolve(import.meta.dir, "../../src/cli/main.ts");

/** The dialects a bench runs: both, or the one `--dialect sqlite|pg` names. */
export function benchDialects(): Dialect[] {
  const i = process.argv.indexOf("--dialect");
  const asked = i > 0 ? process.argv[i + 1] : undefined;
  if (asked !== undefined && asked !== "sqlite" && asked !== "pg") throw new Error(`--dialect ${asked}: expected sqlite or pg`);
  const dialects: Dialect[] = asked ? [asked] : ["sqlite", "pg"];
  if (dialects.includes("pg") && PG_MISSING) throw new Error(`${PG_MISSING} (or run with --dialect sqlite)`);
  return dialects;
}

/** A gateway config in a new temp dir; `auth` is the auth section's body (indented lines), if any. */
export async function benchGateway(dialect: Dialect, prefix: string, auth: string): Promise<BenchGateway> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-${dialect}-`));
  const config = join(dir, "gateway-config.yaml");
  const database = dialect === "pg" ? `database: {url: "${await freshPgDatabase()}"}\n` : "";
  const yaml = `data_dir: ${join(dir, "data")}\nlisten: {address: 127.0.0.1, port: 0}\n${database}auth:${auth ? `\n${auth}` : " {}"}\n`;
  writeFileSync(config, yaml);
  const env = { ...process.env, XDG_CONFIG_HOME: join(dir, "cfg"), XDG_DATA_HOME: join(dir, "xdg") };
  const cli = (args: string[], stdin?: string) => {
    const r = Bun.spawnSync(["bun", MAIN, "gateway", ...args, "--config", config], { env, stdin: stdin ? new TextEncoder().encode(stdin) : undefined });
    if (r.exitCode !== 0) throw new Error(`agent gateway ${args.join(" ")} failed: ${r.stderr}`);
    return { out: r.stdout.toString(), err: r.stderr.toString() };
  };
  const serve = async () => {
    const started = await startGateway(MAIN, config, env);
    // A bench that throws must not leave its gateways running.
    process.once("exit", () => started.server.kill("SIGKILL"));
    return started;
  };
  return { dialect, yaml, config, env, cli, serve };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

export interface Row {
  name: string;
  unit: string;
  /** Whether a larger figure is better (rates) or worse (times). */
  higherIsBetter: boolean;
  values: Partial<Record<Dialect, number>>;
  /** Appended after the figures, e.g. another target. */
  note?: string;
}

/**
 * The side-by-side table: per operation, the SQLite and PostgreSQL figures, PostgreSQL's cost relative to
 * SQLite (time ratio: pg/sqlite for times, sqlite/pg for rates) and the check against `maxRatio`.
 */
export function printSideBySide(rows: Row[], maxRatio: number): void {
  const fmt = (v: number | undefined) => (v === undefined ? "-" : v >= 100 ? v.toFixed(0) : v.toFixed(2));
  const width = Math.max(...rows.map((r) => r.name.length));
  console.log(`${"operation".padEnd(width)}  ${"SQLite".padStart(10)}  ${"PostgreSQL".padStart(10)}  unit       pg cost  (target <= ${maxRatio}x)`);
  for (const r of rows) {
    const { sqlite, pg } = r.values;
    const ratio = sqlite !== undefined && pg !== undefined ? (r.higherIsBetter ? sqlite / pg : pg / sqlite) : undefined;
    const check = ratio === undefined ? "" : `${ratio.toFixed(2)}x ${ratio <= maxRatio ? "PASS" : "FAIL"}`;
    console.log(`${r.name.padEnd(width)}  ${fmt(sqlite).padStart(10)}  ${fmt(pg).padStart(10)}  ${r.unit.padEnd(9)}  ${check}${r.note ? `  ${r.note}` : ""}`);
  }
}
