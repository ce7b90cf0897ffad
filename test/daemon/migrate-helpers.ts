// Helpers of the migration tests: copies of the frozen layout-1 fixtures (never migrated in place), and
// what a session dir holds, summarized so "nothing lost" can be compared.
import { Database } from "bun:sqlite";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summarizeStore, type StoreSummary } from "../../src/daemon/store/migrate/store-summary.ts";
import { LEGACY_STORE_FILE, STORE_FILE } from "../../src/daemon/store/migrate/layout.ts";

export const FIXTURE_ROOT = join(import.meta.dir, "fixtures", "store-v1");
export const FIXTURE_ID = readdirSync(join(FIXTURE_ROOT, "sessions"))[0]!;
const FIXTURE_DIR = join(FIXTURE_ROOT, "sessions", FIXTURE_ID);

export const hashFile = (path: string) => new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
export const FIXTURE_STORE_HASH = hashFile(join(FIXTURE_DIR, LEGACY_STORE_FILE));

/**
 * A data root (`<xdg>/agent`, as `XDG_DATA_HOME=<xdg>` gives) holding a copy of the v1 fixture session;
 * `dir` is its session dir.
 */
export function v1Copy(): { xdg: string; dataRoot: string; sessions: string; dir: string } {
  const xdg = mkdtempSync(join(tmpdir(), "agent-migrate-"));
  const dataRoot = join(xdg, "agent");
  const sessions = join(dataRoot, "sessions");
  cpSync(join(FIXTURE_ROOT, "sessions"), sessions, { recursive: true });
  return { xdg, dataRoot, sessions, dir: join(sessions, FIXTURE_ID) };
}

export function summaryOf(file: string): StoreSummary {
  const db = new Database(file, { readonly: true });
  try {
    return summarizeStore(db);
  } finally {
    db.close();
  }
}

/** The fixture's store, summarized once (read from a copy: a read-only open may leave -shm files). */
export const FIXTURE_SUMMARY = summaryOf(join(v1Copy().dir, LEGACY_STORE_FILE));

/** Whether `dir` is exactly the untouched v1 session, or a complete v2 one holding the same data. */
export function sessionShape(dir: string): "old" | "new" | "neither" {
  if (!existsSync(dir)) return "neither";
  if (existsSync(join(dir, LEGACY_STORE_FILE)) && !existsSync(join(dir, "layout.json"))) {
    return hashFile(join(dir, LEGACY_STORE_FILE)) === FIXTURE_STORE_HASH ? "old" : "neither";
  }
  if (existsSync(join(dir, "layout.json")) && existsSync(join(dir, STORE_FILE)) && !existsSync(join(dir, LEGACY_STORE_FILE))) {
    const layout = JSON.parse(readFileSync(join(dir, "layout.json"), "utf8")).layout;
    return layout === 2 && JSON.stringify(summaryOf(join(dir, STORE_FILE))) === JSON.stringify(FIXTURE_SUMMARY) ? "new" : "neither";
  }
  return "neither";
}

/** The hidden entries (staging, backup, journal) beside a session dir. */
export function hiddenEntries(sessions: string): string[] {
  return readdirSync(sessions).filter((n) => n.startsWith(".")).sort();
}
