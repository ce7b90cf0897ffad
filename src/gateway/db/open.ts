// Opens the gateway database and applies the embedded migrations: SQLite (bun:sqlite, WAL) in the data
// dir by default, PostgreSQL (open-pg.ts) when `database.url` is set. The number of drizzle migrations
// applied is the database's schema version: one written by a newer agent (more migrations than this
// binary carries) is refused before anything is applied.
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { privateDbFile } from "../../util/private-db-file.ts";
import { embeddedGatewayMigrations } from "./embed-migrations.ts" with { type: "macro" };
import { refuseNewerSchema } from "../../daemon/store/migrate/schema-version.ts";
import { sqliteHandle, type GatewayDb } from "./handle.ts";

export type { GatewayDb } from "./handle.ts";

export interface OpenedDb {
  db: GatewayDb;
  /** The SQLite connection (null on PostgreSQL). */
  sqlite: Database | null;
  /** Whether this open applied at least one migration. */
  migrated: boolean;
  /** The database file, or the PostgreSQL URL without its password. */
  path: string;
  engine: { name: "sqlite" | "postgresql"; version: string };
}

export const DB_FILE = "gateway.sqlite";

export function openGatewayDb(dataDir: string | ":memory:"): OpenedDb & { sqlite: Database } {
  let path = ":memory:";
  if (dataDir !== ":memory:") {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    path = join(dataDir, DB_FILE);
    // 0600: the database holds token hashes, audit events and session records (its -wal/-shm follow its mode).
    privateDbFile(path);
  }
  const sqlite = new Database(path, { create: true, strict: true });
  try {
    // busy_timeout first: the WAL switch takes a lock another process (the running gateway, an admin
    // command) may hold for a moment, and that must be a wait, not "database is locked".
    sqlite.exec("PRAGMA busy_timeout = 5000");
    sqlite.exec("PRAGMA journal_mode = WAL");
    sqlite.exec("PRAGMA synchronous = NORMAL");
    sqlite.exec("PRAGMA foreign_keys = ON");
    const migrated = applyMigrations(sqlite, path);
    return { db: sqliteHandle(sqlite), sqlite, migrated, path, engine: { name: "sqlite", version: sqliteVersion(sqlite) } };
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

function appliedCount(sqlite: Database): number {
  const exists = sqlite.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
  if (!exists) return 0;
  return (sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
}

function applyMigrations(sqlite: Database, path: string): boolean {
  const db = drizzle({ client: sqlite });
  const before = appliedCount(sqlite);
  const migrations = embeddedGatewayMigrations();
  refuseNewerSchema(sqlite, migrations, "the gateway database", path);
  // drizzle's own migrator reads files from disk; the dialect's migrate takes the embedded list.
  (db as any).dialect.migrate(migrations, (db as any).session, { migrationsFolder: "(embedded)" });
  return appliedCount(sqlite) > before;
}

function sqliteVersion(sqlite: Database): string {
  return (sqlite.query("SELECT sqlite_version() AS v").get() as { v: string }).v;
}
