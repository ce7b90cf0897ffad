// The doors every opener of a session dir goes through, whatever layout the dir is in:
// - prepareSessionDir: before a resume (daemon start, `agent continue`, creating a store): finishes or
//   undoes an interrupted migration, refuses a newer layout, migrates an older one;
// - openStoreReadOnly: for stopped-history reads: never writes, reads an older layout as it is (the
//   caller projects it in memory) and, mid-migration, the untouched original;
// - cleanupMigrations: for listings: settles interrupted migrations so every session is found, and drops
//   backups whose session is gone or that are past their retention.
import { Database } from "bun:sqlite";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { embeddedSessionMigrations } from "../embed-migrations.ts" with { type: "macro" };
import { MigrationBlockedError, migrationPaths, readJournal, sessionDirOfJournal } from "./journal-file.ts";
import { checkLayoutSupported, detectLayout, LAYOUT_VERSION, LEGACY_STORE_FILE, STORE_FILE } from "./layout.ts";
import { LayoutTooNewError } from "../../../util/file-format-version.ts";
import { liveDaemonPid } from "./live-daemon.ts";
import { MigrationError, migrateV1ToV2, type MigrationOptions } from "./migrate-v1-v2.ts";
import { recoverMigration } from "./recover.ts";
import { refuseNewerSchema } from "./schema-version.ts";

/** How long the private backup of a migrated session is kept. */
export const MIGRATION_BACKUP_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Readies a session dir for read-write use by this binary; returns its layout, or null for no session. */
export function prepareSessionDir(dir: string, options: MigrationOptions = {}): number | null {
  const now = options.now ?? Date.now;
  recoverMigration(dir, now);
  const layout = detectLayout(dir);
  if (layout === null) return null;
  checkLayoutSupported(dir, layout);
  if (layout === LAYOUT_VERSION) return layout;
  const pid = liveDaemonPid(dir);
  if (pid !== null) {
    throw new MigrationBlockedError(`session dir ${dir} is in layout ${layout} and a daemon of an older agent (pid ${pid}) still serves it; stop that daemon, then resume the session to migrate it`);
  }
  try {
    migrateV1ToV2(dir, options);
  } catch (error) {
    // A failure of ours (not another process holding the journal) is undone now, not at the next start.
    if (!(error instanceof MigrationBlockedError)) recoverMigration(dir, now);
    throw error;
  }
  return LAYOUT_VERSION;
}

/** A refusal to open a session dir that the user can act on (update, wait, stop an old daemon): not a crash. */
export function isLayoutRefusal(error: unknown): error is Error {
  return error instanceof LayoutTooNewError || error instanceof MigrationBlockedError || error instanceof MigrationError;
}

export interface ReadOnlyStore {
  sqlite: Database;
  layout: number;
  /** An older layout, read as it is: its history is a projection of the old format. */
  legacy: boolean;
}

/** Opens a session's store without writing anything; null when the dir holds no session. */
export function openStoreReadOnly(dir: string): ReadOnlyStore | null {
  const { backup } = migrationPaths(dir);
  // Between the two renames of a publish the original sits complete in its backup (the dir is gone, or
  // holds only what a launcher wrote since).
  const source = existsSync(backup) && (!existsSync(dir) || detectLayout(dir) === null) ? backup : dir;
  const layout = detectLayout(source);
  if (layout === null) return null;
  checkLayoutSupported(dir, layout);
  const file = join(source, layout === 1 ? LEGACY_STORE_FILE : STORE_FILE);
  if (!existsSync(file)) return null;
  const sqlite = new Database(file, { readonly: true, strict: true });
  try {
    sqlite.exec("PRAGMA busy_timeout = 5000");
    refuseNewerSchema(sqlite, embeddedSessionMigrations(), "this session store", file);
  } catch (error) {
    sqlite.close(true);
    throw error;
  }
  return { sqlite, layout, legacy: layout < LAYOUT_VERSION };
}

/** Settles the migrations under a sessions root and drops backups that are no longer needed. */
export function cleanupMigrations(root: string, now: number): void {
  if (!existsSync(root)) return;
  for (const name of readdirSync(root)) {
    const dir = sessionDirOfJournal(join(root, name));
    if (!dir) continue;
    try {
      const journal = readJournal(join(root, name));
      if (!journal) continue;
      if (journal.state !== "published") {
        recoverMigration(dir, () => now);
        continue;
      }
      const age = now - Date.parse(journal.published_at ?? journal.started_at);
      if (existsSync(dir) && !(age >= MIGRATION_BACKUP_RETENTION_MS)) continue;
      const paths = migrationPaths(dir, journal.from, journal.to);
      rmSync(paths.backup, { recursive: true, force: true });
      rmSync(paths.journal, { force: true });
    } catch {
      // A migration another process is running, or a damaged journal: opening that session says why.
    }
  }
}
