// CPU time a process has used, from /proc/<pid>/stat (Linux): user + system, in seconds (10 ms ticks).
// Its own clock, so time stolen by other work on a shared host is not in it.
import { readFileSync } from "node:fs";

export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name in parentheses may itself hold spaces or ")": the fields start after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
