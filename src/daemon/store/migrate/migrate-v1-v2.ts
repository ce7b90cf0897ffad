// The forward-only migration of a session dir from layout 1 to layout 2. It never changes the original
// until a complete, validated new tree exists: stage (copy everything but the store, copy the store with
// VACUUM INTO, bring its schema up to date, write layout.json), validate (the staged store summarizes
// exactly like the original), then back up the original (rename) and publish the new tree (rename).
// Each state change is recorded in the migration journal and everything staged is fsynced before the
// renames, so that a crash anywhere (the process or the machine) leaves either the old tree or the new
// one, and recoverMigration() can finish or undo what was started.
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { openSessionDb } from "../open.ts";
import { createJournal, migrationPaths, readJournal, writeJournal, type MigrationJournal } from "./journal-file.ts";
import { LEGACY_STORE_FILE, STORE_FILE, writeLayoutFile } from "./layout.ts";
import { summarizeStore, summaryDifference, type StoreSummary } from "./store-summary.ts";

/** The steps, in order; a test hook runs before each one (a throw or a kill there is a crash at that step). */
export const MIGRATION_STEPS = ["begin", "stage_files", "stage_store", "stage_layout", "validate", "backup", "publish", "published"] as const;
export type MigrationStep = (typeof MIGRATION_STEPS)[number];

export interface MigrationOptions {
  now?: () => number;
  beforeStep?: (step: MigrationStep) => void;
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MigrationError";
  }
}

/** Files of the layout-1 store: they are not copied, the store is rebuilt from them. */
const LEGACY_STORE_FILES = new Set(["", "-wal", "-shm", "-journal"].map((s) => LEGACY_STORE_FILE + s));

export function migrateV1ToV2(dir: string, options: MigrationOptions = {}): void {
  const now = options.now ?? Date.now;
  const step = (s: MigrationStep) => options.beforeStep?.(s);
  const paths = migrationPaths(dir, 1, 2);
  step("begin");
  const journal: MigrationJournal = { version: 1, session_dir: basename(dir), from: 1, to: 2, state: "staging", pid: process.pid, started_at: new Date(now()).toISOString() };
  // A finished migration's journal without its backup (a hand-restored original) guards nothing.
  if (readJournal(paths.journal)?.state === "published" && !existsSync(paths.backup)) rmSync(paths.journal);
  createJournal(paths.journal, journal);
  rmSync(paths.staging, { recursive: true, force: true });
  // The new tree is private whatever the old dir's mode was.
  mkdirSync(paths.staging, { mode: 0o700 });

  step("stage_files");
  copyTree(dir, paths.staging, (name) => !LEGACY_STORE_FILES.has(name));

  step("stage_store");
  const original = new Database(join(dir, LEGACY_STORE_FILE), { readonly: true, strict: true });
  try {
    original.exec("PRAGMA busy_timeout = 5000");
    mkdirSync(join(paths.staging, "store"), { mode: 0o700 });
    // A consistent snapshot of the original (WAL content included), written without touching it.
    original.prepare("VACUUM INTO ?").run(join(paths.staging, STORE_FILE));
    // Brings the copy's schema to this binary's (and sets WAL, FULL sync, 0600).
    openSessionDb(paths.staging).sqlite.close(true);
    syncPath(join(paths.staging, STORE_FILE));
    syncPath(join(paths.staging, "store"));
    const sessionId = String((original.query("SELECT id FROM session_meta").get() as { id: string } | null)?.id ?? "");

    step("stage_layout");
    writeLayoutFile(paths.staging, { layout: 2, session_id: sessionId, migrated_from: 1, migrated_at: new Date(now()).toISOString() });

    step("validate");
    const staged = new Database(join(paths.staging, STORE_FILE), { readonly: true, strict: true });
    let difference: string | null;
    try {
      difference = summaryDifference(summarize(original, sessionId), summarizeStore(staged, original));
    } finally {
      staged.close();
    }
    if (difference) throw new MigrationError(`the migrated copy of session ${sessionId} does not match the original (${difference}); the original is unchanged`);
  } finally {
    original.close();
  }
  syncPath(paths.staging);
  journal.state = "validated";
  writeJournal(paths.journal, journal);

  step("backup");
  renameSync(dir, paths.backup);
  syncPath(dirname(dir));
  journal.state = "backed_up";
  writeJournal(paths.journal, journal);

  step("publish");
  renameSync(paths.staging, dir);
  syncPath(dirname(dir));

  step("published");
  journal.state = "published";
  journal.published_at = new Date(now()).toISOString();
  writeJournal(paths.journal, journal);
}

function summarize(original: Database, sessionId: string): StoreSummary {
  try {
    return summarizeStore(original);
  } catch (error) {
    throw new MigrationError(`session ${sessionId} cannot be migrated: ${(error as Error).message}; the original is unchanged`);
  }
}

/** Copies a directory tree (files and folders, with their modes); `keep` filters top-level names. */
function copyTree(from: string, to: string, keep: (name: string) => boolean = () => true): void {
  for (const name of readdirSync(from)) {
    if (!keep(name)) continue;
    const source = join(from, name);
    const target = join(to, name);
    const st = lstatSync(source);
    if (st.isDirectory()) {
      mkdirSync(target, { mode: st.mode & 0o777 });
      copyTree(source, target);
      syncPath(target);
    } else if (st.isFile()) {
      copyFileSync(source, target);
      chmodSync(target, st.mode & 0o777);
      syncPath(target);
    }
    // Sockets, fifos and links are not part of a session's data.
  }
}

/** Flushes a file or a directory (its entries) to disk. */
function syncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on directories; renames there are still atomic.
  } finally {
    closeSync(fd);
  }
}
