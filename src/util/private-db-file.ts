// SQLite database files readable and writable by their owner only (0600, whatever the umask). SQLite
// creates a database's -wal, -shm and -journal files with the database file's own mode, so creating the
// database file 0600 before SQLite opens it covers them; files an older build left 0644 are corrected.
import { chmodSync, closeSync, openSync } from "node:fs";

export const PRIVATE_FILE_MODE = 0o600;

export function privateDbFile(path: string): void {
  closeSync(openSync(path, "a", PRIVATE_FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    try {
      chmodSync(file, PRIVATE_FILE_MODE);
    } catch (error) {
      // Absent: nothing to correct. Another user's file (an admin command run as root on a user's data dir
      // is the owner's business): leave it as it is rather than refuse to open.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "EPERM") throw error;
    }
  }
}
