// Whether a daemon still serves a session dir from `daemon.json` (written by every layout so far): a
// session an older binary's daemon is writing to must not be migrated under it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "./journal-file.ts";

export function liveDaemonPid(dir: string): number | null {
  let pid: unknown;
  try {
    pid = (JSON.parse(readFileSync(join(dir, "daemon.json"), "utf8")) as { pid?: unknown }).pid;
  } catch {
    return null;
  }
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || !processAlive(pid)) return null;
  // A reused pid: where the command line is readable it must be an agent daemon of this session.
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\u0000");
    if (!cmdline.includes("daemon")) return null;
  } catch {
    // No /proc (macOS): the pid alone decides, erring on the side of not migrating.
  }
  return pid;
}
