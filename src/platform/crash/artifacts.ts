// Crash reports as daemon feedback artifacts (GET /feedback/artifacts): the newest few, one artifact each,
// already redacted when written (the feedback catalog scrubs them again with the session's secrets).
import { listCrashReportFiles, readCrashReport } from "./store.ts";

/** Reports offered per catalog: enough to see a pattern, bounded so a catalog stays small. */
export const CRASH_ARTIFACTS = 5;

export function crashReportArtifacts(dir: string): { id: string; title: string; mediaType: string; text: string }[] {
  const out = [];
  for (const file of listCrashReportFiles(dir).slice(0, CRASH_ARTIFACTS)) {
    let text: string;
    try {
      text = readCrashReport(dir, file);
    } catch {
      continue; // removed between listing and reading
    }
    const id = file.replace(/\.json$/, "");
    out.push({ id, title: `Crash report ${id.slice("crash-".length, "crash-".length + 16)}`, mediaType: "application/json", text });
  }
  return out;
}
