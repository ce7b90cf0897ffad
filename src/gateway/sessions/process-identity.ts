// A daemon process is identified by its pid AND its start time (field 22 of /proc/<pid>/stat, clock ticks
// since boot). A pid alone may since have been reused by an unrelated process: nothing is ever signalled
// unless both match what was recorded when the daemon was spawned.
import { readFileSync } from "node:fs";

/** The start time of a live process, or null when no such process exists (or it is a zombie). */
export function processStartTicks(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces or ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state); field 22 is fields[19].
  if (fields[0] === "Z" || fields[0] === "X") return null;
  return fields[19] ?? null;
}

export interface ProcessIdentity {
  pid: number;
  startTicks: string;
}

/** Whether the recorded process is still the one running under its pid. */
export function isSameProcess(identity: ProcessIdentity): boolean {
  return processStartTicks(identity.pid) === identity.startTicks;
}

/** Sends a signal only when the pid still names the recorded process; returns whether it was sent. */
export function signalIfSame(identity: ProcessIdentity, signal: NodeJS.Signals): boolean {
  if (!isSameProcess(identity)) return false;
  try {
    process.kill(identity.pid, signal);
    return true;
  } catch {
    return false;
  }
}
