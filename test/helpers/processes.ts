// Processes seen from /proc and by signal 0: for tests that check a child was really ended.
import { readdirSync, readFileSync } from "node:fs";

/** The fields of /proc/<pid>/stat after the command name: [state, ppid, ...]. Throws when there is no such process. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Running: a process that is not a zombie (a zombie has exited; only its parent's wait is missing). */
export function processRunning(pid: number): boolean {
  try {
    return statFields(pid)[0] !== "Z";
  } catch {
    return false;
  }
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

/** Pids of the processes for which `match` is true; one that ends while `match` reads its files is left out. */
function pidsWhere(match: (pid: number) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (match(Number(entry))) pids.push(Number(entry));
    } catch {
      // It ended while we looked.
    }
  }
  return pids;
}

/** The NUL-separated entries of /proc/<pid>/<file>: arguments as UTF-8, the environment byte for byte (it need not be UTF-8). */
const entries = (pid: number, file: "cmdline" | "environ") => readFileSync(`/proc/${pid}/${file}`, file === "cmdline" ? "utf8" : "latin1").split("\0");

/** Pids of running processes (zombies left out) with `arg` as one of their command-line arguments. */
export function runningWithArg(arg: string): number[] {
  return pidsWhere((pid) => entries(pid, "cmdline").includes(arg) && processRunning(pid));
}

/** Pids of running processes (zombies left out) whose environment holds `entry` ("NAME=value"). */
export function runningWithEnv(entry: string): number[] {
  return pidsWhere((pid) => entries(pid, "environ").includes(entry) && processRunning(pid));
}

/** Pids of the children of `ppid`, zombies included (each would still be a process the parent has to reap). */
export function childrenOf(ppid: number): number[] {
  return pidsWhere((pid) => Number(statFields(pid)[1]) === ppid);
}

/** A process's file-backed resident memory (RssFile in /proc/<pid>/status), in kB. */
export function rssFileKb(pid: number): number {
  return Number(/RssFile:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
}
