// Processes seen from /proc and by signal 0: for tests that check a child was really ended.
import { readdirSync, readFileSync } from "node:fs";

/** The state letter of a process ("R", "S", "Z" ...) from /proc/<pid>/stat, or null when there is no such process. */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return null;
  }
}

/** Running: a process that is not a zombie (a zombie has exited; only its parent's wait is missing). */
export function processRunning(pid: number): boolean {
  const state = processState(pid);
  return state !== null && state !== "Z";
}

/** There is a process with this pid, in any state: a zombie not yet reaped counts (what `kill(pid, 0)` tells). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of live processes with `arg` as one of their command-line arguments. A zombie (state Z) has exited: it is left out. */
export function runningWithArg(arg: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(arg)) continue;
      if (!/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, "utf8"))) pids.push(Number(entry));
    } catch {
      // It ended while we looked.
    }
  }
  return pids;
}
