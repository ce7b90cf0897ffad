// A Bun macro: inlines the session store's drizzle-kit migrations at bundle time, so the compiled
// binary carries them (the same scheme as the gateway database).
import { join } from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";

export function embeddedSessionMigrations() {
  return readMigrationFiles({ migrationsFolder: join(import.meta.dir, "migrations") }).map((m) => ({
    sql: m.sql,
    bps: m.bps,
    folderMillis: m.folderMillis,
    hash: m.hash,
  }));
}
