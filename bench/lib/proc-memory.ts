// Memory of a process from /proc/<pid>/status (Linux), in MB: resident (VmRSS), its anonymous part (heaps,
// RssAnon) and its file-backed part (mostly pages of the executable, RssFile), and the peak (VmHWM).
import { readFileSync } from "node:fs";

export interface Rss {
  total: number;
  anon: number;
  file: number;
}

/** One field of /proc/<pid>/status in MB (NaN when the process is gone or the field missing). */
export function statusMb(pid: number, field: "VmRSS" | "VmHWM" | "RssAnon" | "RssFile"): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return NaN;
  }
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

export function rss(pid: number): Rss {
  return { total: statusMb(pid, "VmRSS"), anon: statusMb(pid, "RssAnon"), file: statusMb(pid, "RssFile") };
}

export const rssText = (r: Rss) => `${r.total.toFixed(1)} MB (anonymous ${r.anon.toFixed(1)}, file-backed ${r.file.toFixed(1)})`;
