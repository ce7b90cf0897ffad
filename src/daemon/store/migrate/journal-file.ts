// The migration journal of one session dir: `.<name>.migration.json` beside it, rewritten atomically at
// every state change. With the staged tree `.<name>.layout-<to>.staging` and the private backup
// `.<name>.layout-<from>.backup` (both beside the session dir, hidden from listings by the leading dot)
// it tells a later start whether to finish the publish or restore the original.
import { existsSync, linkSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { writeFileAtomic } from "../../../util/atomic-write.ts";

/**
 * `staging`: the new tree is being built (the original is untouched); `validated`: it matches the
 * original; `backed_up`: the original was renamed to the backup; `published`: the new tree is the session
 * dir (the journal stays, naming the backup, until cleanup).
 */
export type MigrationState = "staging" | "validated" | "backed_up" | "published";

export interface MigrationJournal {
  version: 1;
  session_dir: string;
  from: number;
  to: number;
  state: MigrationState;
  /** The process migrating: a live one other than ours means "in progress, keep out". */
  pid: number;
  started_at: string;
  published_at?: string;
}

export interface MigrationPaths {
  dir: string;
  staging: string;
  backup: string;
  journal: string;
}

export function migrationPaths(dir: string, from = 1, to = 2): MigrationPaths {
  const parent = dirname(dir);
  const name = basename(dir);
  return {
    dir,
    staging: join(parent, `.${name}.layout-${to}.staging`),
    backup: join(parent, `.${name}.layout-${from}.backup`),
    journal: join(parent, `.${name}.migration.json`),
  };
}

/** The session dir a journal file belongs to (`.<name>.migration.json` -> `<parent>/<name>`), or null. */
export function sessionDirOfJournal(file: string): string | null {
  const m = /^\.(.+)\.migration\.json$/.exec(basename(file));
  return m ? join(dirname(file), m[1]!) : null;
}

export function readJournal(path: string): MigrationJournal | null {
  if (!existsSync(path)) return null;
  let doc: MigrationJournal;
  try {
    doc = JSON.parse(readFileSync(path, "utf8")) as MigrationJournal;
  } catch {
    throw new Error(`migration journal ${path} is not valid JSON; move it away to retry the migration (the session dir and its backup are beside it)`);
  }
  if (doc?.version !== 1 || !["staging", "validated", "backed_up", "published"].includes(doc.state) || !Number.isSafeInteger(doc.from) || !Number.isSafeInteger(doc.to)) {
    throw new Error(`migration journal ${path} is not one this binary understands (version ${JSON.stringify(doc?.version)}, state ${JSON.stringify(doc?.state)}); update agent`);
  }
  return doc;
}

/** Another live process is migrating the session (or hosts it in an older layout): try again later. */
export class MigrationBlockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MigrationBlockedError";
  }
}

/**
 * Writes the first journal of a migration, failing if one exists: the journal doubles as the lock that
 * keeps two processes from migrating one session at once (a hard link publishes it whole, or not at all).
 */
export function createJournal(path: string, journal: MigrationJournal): void {
  const tmp = `${path}.${process.pid}.new`;
  writeJournal(tmp, journal);
  try {
    linkSync(tmp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    if (readJournal(path)?.state === "published") {
      // Only a hand-restored original gets here: its earlier migration's backup and journal are still beside it.
      throw new MigrationBlockedError(`session ${journal.session_dir} was migrated before and its backup is still beside it (journal ${path}); move the backup and the journal away to migrate it again`);
    }
    throw new MigrationBlockedError(`session ${journal.session_dir} is being migrated by another process (journal ${path}); try again in a moment`);
  } finally {
    rmSync(tmp, { force: true });
  }
}

export function writeJournal(path: string, journal: MigrationJournal): void {
  writeFileAtomic(path, `${JSON.stringify(journal, null, 2)}\n`, 0o600);
}

/** Whether a process is alive (a process of another user counts: it cannot be signalled, but exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
