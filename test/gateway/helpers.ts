// Starts real gateways on 127.0.0.1:0 with a temp data dir, a fake clock and fast hashing.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "bun:test";
import { FakeClock } from "../fakes/fake-clock.ts";
import { freshPgDatabase } from "../helpers/postgres.ts";
import { parseGatewayConfig } from "../../src/gateway/config/load.ts";
import { startGateway, type RunningGateway, type StartOptions } from "../../src/gateway/server/serve.ts";
import type { GatewayDb } from "../../src/gateway/db/handle.ts";
import type { GatewayContext } from "../../src/gateway/context.ts";

export interface TestGateway extends RunningGateway {
  clock: FakeClock;
  dir: string;
}

/** The dialect the gateway tests run on: `AGENT_TEST_DB=pg` runs them on PostgreSQL (a fresh database each). */
export const TEST_DB: "sqlite" | "pg" = process.env.AGENT_TEST_DB === "pg" ? "pg" : "sqlite";

/** `test` for what only SQLite has (its file, WAL, its migration history); the test's name says why. */
export const sqliteOnlyTest = test.skipIf(TEST_DB === "pg");

// Under AGENT_TEST_DB=pg a gateway started again on a data dir (a restart) finds the database the earlier
// one used there, as it finds its SQLite file: the data dir and its database are one gateway's data.
const pgDatabases = new Map<string, string>();
async function pgDatabaseOf(dataDir: string): Promise<string> {
  let url = pgDatabases.get(dataDir);
  if (!url) pgDatabases.set(dataDir, (url = await freshPgDatabase()));
  return url;
}

/**
 * `extra` is YAML appended to a base config (port 0, temp data dir, cheap Argon2 settings). `database`: a
 * PostgreSQL URL to share (replicas), or null for SQLite on either run (a gateway SQLite by nature: an
 * export's source); otherwise, under AGENT_TEST_DB=pg, the data dir's PostgreSQL database (fresh on the data
 * dir's first start), else SQLite.
 */
export async function startTestGateway(extra = "", options: Partial<StartOptions> & { auth?: string; dataDir?: string; database?: string | null } = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), "gw-test-"));
  const dataDir = options.dataDir ?? join(dir, "data");
  const database = options.database === null ? undefined : (options.database ?? (TEST_DB === "pg" ? await pgDatabaseOf(dataDir) : undefined));
  const yaml = `data_dir: ${dataDir}\n${database ? `database:\n  url: ${database}\n` : ""}listen:\n  address: 127.0.0.1\n  port: 0\nauth:\n  password:\n    memory_kib: 8192\n    time_cost: 1\n${options.auth ?? ""}${extra}`;
  const file = join(dir, "gateway-config.yaml");
  writeFileSync(file, yaml);
  const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
  const gw = await startGateway({ config: parseGatewayConfig(yaml, file), env: process.env, clock, pam: null, ...options });
  return Object.assign(gw, { clock, dir });
}

export function tempDir(prefix = "gw-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Creates a principal with a password straight in the database; returns its id. */
export async function addUser(gw: RunningGateway, username: string, password: string): Promise<string> {
  const p = await gw.ctx.principals.create(username);
  await gw.ctx.principals.setPasswordHash(p.id, await gw.ctx.hasher.hash(password));
  return p.id;
}

/**
 * The storage lines of a config a test writes itself: `data_dir` and, under AGENT_TEST_DB=pg, the data
 * dir's PostgreSQL `database.url`.
 */
export async function storageYaml(dataDir: string): Promise<string> {
  return `data_dir: ${dataDir}\n${TEST_DB === "pg" ? `database:\n  url: ${await pgDatabaseOf(dataDir)}\n` : ""}`;
}

/**
 * The storage lines of a running gateway's config (its data_dir and database.url), for the configs tests
 * write for CLI runs and second contexts: they must reach the same data on either dialect.
 */
export function gatewayStorageYaml(gw: { ctx: Pick<GatewayContext, "dataDir" | "config"> }): string {
  const url = gw.ctx.config.database.url;
  return `data_dir: ${gw.ctx.dataDir}\n${url ? `database:\n  url: ${url}\n` : ""}`;
}

type SqlParam = string | number | boolean | null;
type Row = Record<string, unknown>;

// PostgreSQL type OIDs read back as SQLite returns them: int8 (bigint columns, count(*)) as numbers,
// booleans as 0/1.
const INT8 = 20;
const BOOL = 16;

/**
 * Runs one SQL statement on a gateway database of either dialect, for tests that seed, break or inspect it:
 * `?` placeholders (numbered for PostgreSQL), rows as SQLite returns them.
 */
export async function sqlAll<T = Row>(db: GatewayDb, text: string, params: SqlParam[] = []): Promise<T[]> {
  const client = (db as unknown as { $client: unknown }).$client;
  if (db.engine === "sqlite") return (client as import("bun:sqlite").Database).query(text).all(...params) as T[];
  let n = 0;
  const rows = (await (client as import("bun").SQL).unsafe(text.replace(/\?/g, () => `$${++n}`), params)) as Row[] & { statement?: { columns?: { name: string; type: number }[] } };
  const columns = rows.statement?.columns ?? [];
  return rows.map((row) => {
    for (const { name, type } of columns) {
      const value = row[name];
      if (value === null || value === undefined) continue;
      if (type === INT8) row[name] = Number(value);
      else if (type === BOOL) row[name] = value ? 1 : 0;
    }
    return row as T;
  });
}

/** The first row of `sqlAll`, or null (as SQLite's `.get()`). */
export async function sqlGet<T = Row>(db: GatewayDb, text: string, params: SqlParam[] = []): Promise<T | null> {
  return (await sqlAll<T>(db, text, params))[0] ?? null;
}

/** The names of the database's tables (the gateway's schema on PostgreSQL), sorted. */
export async function tableNames(db: GatewayDb): Promise<string[]> {
  const query = db.engine === "sqlite" ? "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name" : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY name";
  return (await sqlAll<{ name: string }>(db, query)).map((r) => r.name);
}
