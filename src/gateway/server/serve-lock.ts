// One `agent gateway serve` per SQLite data dir: two over one database fail each other's sessions, proxy
// and fleet cursors (issue 38). The lock is SQLite's own exclusive file lock on `serve.lock`, held until the
// connection closes, so a crashed server leaves no stale lock behind (the kernel drops it with the
// process); `serve.pid` beside it only names the holder in the refusal.
import { Database } from "bun:sqlite";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { privateDbFile } from "../../util/private-db-file.ts";

export const SERVE_LOCK_FILE = "serve.lock";
const PID_FILE = "serve.pid";

export interface ServeLock {
  release(): void;
}

export class ServeLockedError extends Error {
  constructor(readonly dataDir: string, readonly holderPid: number | null) {
    const who = holderPid === null ? "another `agent gateway serve`" : `another \`agent gateway serve\` (pid ${holderPid})`;
    super(
      `${who} already serves the data dir ${dataDir} (it holds ${join(dataDir, SERVE_LOCK_FILE)}): ` +
        "two servers over one SQLite database fail each other's sessions; stop that one first, give this one another data_dir, " +
        "or run several replicas on PostgreSQL (database.url)",
    );
    this.name = "ServeLockedError";
  }
}

export function acquireServeLock(dataDir: string): ServeLock {
  const path = join(dataDir, SERVE_LOCK_FILE);
  privateDbFile(path);
  const db = new Database(path, { create: true });
  try {
    // No busy wait: a held lock is an answer, not a moment to wait out.
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)");
    db.exec("DELETE FROM holder");
    db.run("INSERT INTO holder (pid) VALUES (?)", [process.pid]);
    // In EXCLUSIVE locking mode the commit keeps the file lock until the connection closes.
    db.exec("COMMIT");
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === "SQLITE_BUSY") throw new ServeLockedError(dataDir, holderPid(dataDir));
    throw error;
  }
  writeFileSync(join(dataDir, PID_FILE), `${process.pid}\n`, { mode: 0o600 });
  return { release: () => db.close() };
}

function holderPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, PID_FILE), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
