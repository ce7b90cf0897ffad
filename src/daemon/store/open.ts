// Opens a session dir's database: WAL, synchronous=FULL (a record is durable before any client sees
// it, and survives a crash of the daemon or the machine), then the embedded migrations. The file sits
// where the current layout puts it (migrate/layout.ts); a schema newer than this binary's is refused.
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { privateDbFile } from "../../util/private-db-file.ts";
import { embeddedSessionMigrations } from "./embed-migrations.ts" with { type: "macro" };
import { STORE_FILE } from "./migrate/layout.ts";
import { refuseNewerSchema } from "./migrate/schema-version.ts";
import * as schema from "./schema.ts";

export type SessionDb = BunSQLiteDatabase<typeof schema> & { $client: Database };

export { STORE_FILE };

export function openSessionDb(sessionDir: string): { db: SessionDb; sqlite: Database } {
  const path = join(sessionDir, STORE_FILE);
  mkdirSync(sessionDir, { recursive: true, mode: 0o700 });
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // 0600 from its creation (not chmod after SQLite made it 0644); its -wal/-shm follow its mode.
  privateDbFile(path);
  const sqlite = new Database(path, { create: true, strict: true });
  try {
    // First: switching to WAL needs a lock, and a daemon closing the same store (its last connection
    // checkpoints and removes the WAL under an exclusive lock) must make us wait, not fail "database is locked".
    sqlite.exec("PRAGMA busy_timeout = 5000");
    sqlite.exec("PRAGMA journal_mode = WAL");
    sqlite.exec("PRAGMA synchronous = FULL");
    const migrations = embeddedSessionMigrations();
    refuseNewerSchema(sqlite, migrations, "this session store", path);
    const db = drizzle({ client: sqlite, schema }) as SessionDb;
    // drizzle's file migrator reads from disk; the dialect's migrate takes the embedded list.
    (db as any).dialect.migrate(migrations, (db as any).session, { migrationsFolder: "(embedded)" });
    return { db, sqlite };
  } catch (error) {
    sqlite.close();
    throw error;
  }
}
