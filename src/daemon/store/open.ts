// Opens a session dir's database: WAL, synchronous=FULL (a record is durable before any client sees
// it, and survives a crash of the daemon or the machine), then the embedded migrations.
import { Database } from "bun:sqlite";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { embeddedSessionMigrations } from "./embed-migrations.ts" with { type: "macro" };
import * as schema from "./schema.ts";

export type SessionDb = BunSQLiteDatabase<typeof schema> & { $client: Database };

export const STORE_FILE = "session.sqlite";

export function openSessionDb(sessionDir: string): { db: SessionDb; sqlite: Database } {
  mkdirSync(sessionDir, { recursive: true, mode: 0o700 });
  const path = join(sessionDir, STORE_FILE);
  const sqlite = new Database(path, { create: true, strict: true });
  try {
    chmodSync(path, 0o600);
    sqlite.exec("PRAGMA journal_mode = WAL");
    sqlite.exec("PRAGMA synchronous = FULL");
    sqlite.exec("PRAGMA busy_timeout = 5000");
    const db = drizzle({ client: sqlite, schema }) as SessionDb;
    // drizzle's file migrator reads from disk; the dialect's migrate takes the embedded list.
    (db as any).dialect.migrate(embeddedSessionMigrations(), (db as any).session, { migrationsFolder: "(embedded)" });
    return { db, sqlite };
  } catch (error) {
    sqlite.close();
    throw error;
  }
}
