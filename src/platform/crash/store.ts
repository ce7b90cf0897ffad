// Crash reports on disk: `<data root>/crash-reports/<id>.json`, mode 600 in a 700 directory, written
// atomically; the newest KEEP are kept.
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { dataRoot } from "../../config/files.ts";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import type { CrashReport } from "./report.ts";

export const CRASH_DIR = "crash-reports";
const KEEP = 20;

export function crashReportDir(env: Readonly<Record<string, string | undefined>>): string {
  return join(dataRoot(env), CRASH_DIR);
}

/** `crash-20261121T160000123Z-<random>`: sorts by time. */
export function newCrashId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:.]/g, "");
  return `crash-${stamp}-${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
}

export function writeCrashReport(dir: string, report: CrashReport): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = join(dir, `${report.id}.json`);
  writeFileAtomic(path, `${JSON.stringify(report, null, 2)}\n`, 0o600);
  for (const old of listCrashReportFiles(dir).slice(KEEP)) rmSync(join(dir, old), { force: true });
  return path;
}

/** Report file names, newest first. */
export function listCrashReportFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => /^crash-[0-9TZ]+-[a-z0-9]+\.json$/.test(n)).sort().reverse();
}

export function readCrashReport(dir: string, file: string): string {
  return readFileSync(join(dir, file), "utf8");
}
