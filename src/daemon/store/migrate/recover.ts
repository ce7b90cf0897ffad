// Finishes or undoes a migration that a crash interrupted, from the journal and what is on disk:
// - the session dir already holds the new layout: the publish happened; record it;
// - the original was moved to the backup and a validated staged tree exists: publish it;
// - otherwise: put the original back (if it was moved) and drop the staged tree, so the session is
//   exactly as it was and the migration can run again.
// A launcher may have written a fresh credential into the path of a dir that is mid-publish (creating
// an empty dir there): such files are moved into the tree being put in place, never lost.
import { existsSync, readdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";
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
  const layout = existsSync(dir) ? detectLayout(dir) : null;
  if (layout !== null && layout >= journal.to) {
    rmSync(paths.staging, { recursive: true, force: true });
    publish();
    return "finished";
  }
  if (layout === null && existsSync(paths.backup)) {
    const validated = journal.state === "validated" || journal.state === "backed_up";
    const target = validated && existsSync(paths.staging) ? paths.staging : paths.backup;
    if (existsSync(dir)) absorb(dir, target);
    renameSync(target, dir);
    if (target === paths.staging) {
      publish();
      return "finished";
    }
  }
  rmSync(paths.staging, { recursive: true, force: true });
  rmSync(paths.journal, { force: true });
  return "restored";
}

/** Moves the files of a dir holding no session into `into` (theirs are newer), then removes the dir. */
function absorb(husk: string, into: string): void {
  for (const name of readdirSync(husk)) {
    rmSync(join(into, name), { recursive: true, force: true });
    renameSync(join(husk, name), join(into, name));
  }
  rmdirSync(husk);
}
