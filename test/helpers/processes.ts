// Processes found by what they run, from /proc: for tests that check a child was really ended.
import { readdirSync, readFileSync } from "node:fs";

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
