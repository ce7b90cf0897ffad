// A Bun macro: runs at bundle time (build and test alike) and inlines the drizzle-kit migrations
// (SQL statements plus journal data) into the code, so the compiled binary carries them.
import { join } from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";

export function embeddedGatewayMigrations() {
  return embed("migrations");
}

/** The PostgreSQL dialect's migrations (drizzle.gateway-pg.config.ts). */
export function embeddedGatewayPgMigrations() {
  return embed("migrations-pg");
}

function embed(folder: string) {
  return readMigrationFiles({ migrationsFolder: join(import.meta.dir, folder) }).map((m) => ({
    sql: m.sql,
    bps: m.bps,
    folderMillis: m.folderMillis,
    hash: m.hash,
  }));
}
