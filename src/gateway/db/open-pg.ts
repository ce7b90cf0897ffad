// Opens the gateway database on PostgreSQL (Bun's SQL client, drizzle's pg dialect) and applies the
// embedded pg migrations under a session advisory lock: replicas starting together on an empty database
// take turns, and the later ones find the migrations applied (drizzle's CREATE SCHEMA / CREATE TABLE IF NOT
// EXISTS race each other without it).
import { SQL } from "bun";
import { drizzle } from "drizzle-orm/bun-sql";
import { embeddedGatewayPgMigrations } from "./embed-migrations.ts" with { type: "macro" };
import { LayoutTooNewError } from "../../util/file-format-version.ts";
import { pgHandle, type GatewayDb } from "./handle.ts";

/**
 * Seconds to wait for a connection: an unreachable server (a firewall dropping packets, a host that
 * accepts and never answers) fails the start within seconds instead of Bun's default 30.
 */
export const CONNECT_TIMEOUT_SECS = 5;

/** The migration lock's key (pg_advisory_lock): "agentgwm" as a 64-bit integer. */
const MIGRATION_LOCK_KEY = 0x6167656e7467776dn;

/** The URL with its password (if any) masked, for messages. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an unparsable database.url)";
  }
}

export interface PgOptions {
  /** The password, read from the file or variable the config names; never from the config file itself. */
  password?: string;
  /** Pool size of the shared client (default 10). */
  max?: number;
}

export interface OpenedPg {
  db: GatewayDb;
  sqlite: null;
  /** Whether this open applied at least one migration. */
  migrated: boolean;
  /** The URL without its password. */
  path: string;
  engine: { name: "postgresql"; version: string };
}

export async function openGatewayPg(url: string, options: PgOptions = {}): Promise<OpenedPg> {
  const where = displayUrl(url);
  const connect = (max: number) => new SQL({ url, max, connectionTimeout: CONNECT_TIMEOUT_SECS, ...(options.password !== undefined ? { password: options.password } : {}) });
  // One connection for the lock and the migrations: a session advisory lock belongs to a connection.
  const admin = connect(1);
  let migrated: boolean;
  let version: string;
  try {
    try {
      await admin`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    } catch (error) {
      throw new Error(`cannot connect to the gateway database at ${where}: ${(error as Error).message}`);
    }
    try {
      version = ((await admin`SHOW server_version`) as { server_version: string }[])[0]!.server_version;
      const migrations = embeddedGatewayPgMigrations();
      const before = await appliedCount(admin);
      const newestKnown = migrations.reduce((n, m) => Math.max(n, m.folderMillis), 0);
      if (before.count > migrations.length || before.last > newestKnown) throw new LayoutTooNewError("the gateway database", "schema", before.count, migrations.length, where);
      const db = drizzle({ client: admin });
      // drizzle's own migrator reads files from disk; the dialect's migrate takes the embedded list.
      await (db as any).dialect.migrate(migrations, (db as any).session, { migrationsFolder: "(embedded)" });
      migrated = (await appliedCount(admin)).count > before.count;
    } finally {
      await admin`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
    }
  } finally {
    await admin.close();
  }
  return { db: pgHandle(connect(options.max ?? 10)), sqlite: null, migrated, path: where, engine: { name: "postgresql", version } };
}

async function appliedCount(sql: SQL): Promise<{ count: number; last: number }> {
  const [exists] = (await sql`SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`) as { present: boolean }[];
  if (!exists?.present) return { count: 0, last: 0 };
  const [row] = (await sql`SELECT count(*)::int AS n, coalesce(max(created_at), 0)::text AS last FROM drizzle.__drizzle_migrations`) as { n: number; last: string }[];
  return { count: row!.n, last: Number(row!.last) };
}
