// Finishes or undoes a migration that a crash interrupted, from the journal and what is on disk:
// - the session dir already holds the new layout: the publish happened; record it;
// - the original was moved to the backup and a validated staged tree exists: publish it;
// - otherwise: put the original back (if it was moved) and drop the staged tree, so the session is
//   exactly as it was and the migration can run again.
import { existsSync, renameSync, rmSync } from "node:fs";
import { MigrationBlockedError, migrationPaths, processAlive, readJournal, writeJournal } from "./journal-file.ts";
import { detectLayout } from "./layout.ts";

export type Recovery = "none" | "finished" | "restored";

export function recoverMigration(dir: string, now: () => number = Date.now): Recovery {
  const probe = migrationPaths(dir);
  const journal = readJournal(probe.journal);
  if (!journal || journal.state === "published") return "none";
  if (journal.pid !== process.pid && processAlive(journal.pid)) {
    throw new MigrationBlockedError(`session ${journal.session_dir} is being migrated by process ${journal.pid}; try again in a moment`);
  }
  const paths = migrationPaths(dir, journal.from, journal.to);
  const publish = () => {
    journal.state = "published";
    journal.published_at = new Date(now()).toISOString();
    writeJournal(paths.journal, journal);
  };
  if (existsSync(dir) && (detectLayout(dir) ?? 0) >= journal.to) {
    rmSync(paths.staging, { recursive: true, force: true });
    publish();
    return "finished";
  }
  const validated = journal.state === "validated" || journal.state === "backed_up";
  if (!existsSync(dir) && existsSync(paths.backup) && existsSync(paths.staging) && validated) {
    renameSync(paths.staging, dir);
    publish();
    return "finished";
  }
  if (!existsSync(dir) && existsSync(paths.backup)) renameSync(paths.backup, dir);
  rmSync(paths.staging, { recursive: true, force: true });
  rmSync(paths.journal, { force: true });
  return "restored";
}
