// The schema inside a SQLite file is versioned by the drizzle migrations applied to it. drizzle's
// migrator only applies what is missing and says nothing about a database that has MORE than it knows:
// an older binary would then run on a newer schema. This check refuses that before anything is applied.
import type { Database } from "bun:sqlite";
import { LayoutTooNewError } from "../../../util/file-format-version.ts";

/** The schema version of a database: how many migrations were applied, and the newest one's timestamp. */
export function appliedSchema(sqlite: Database): { count: number; last: number } {
  const table = sqlite.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
  if (!table) return { count: 0, last: 0 };
  const row = sqlite.query("SELECT count(*) AS n, coalesce(max(created_at), 0) AS last FROM __drizzle_migrations").get() as { n: number; last: number };
  return { count: row.n, last: Number(row.last) };
}

/** Throws when the database carries migrations this binary does not have (a newer binary wrote it). */
export function refuseNewerSchema(sqlite: Database, known: readonly { folderMillis: number }[], subject: string, where: string): void {
  const applied = appliedSchema(sqlite);
  const newestKnown = known.reduce((n, m) => Math.max(n, m.folderMillis), 0);
  if (applied.count > known.length || applied.last > newestKnown) throw new LayoutTooNewError(subject, "schema", applied.count, known.length, where);
}
