// The compiled binary under test: dist/agent, rebuilt when anything it is built from is newer.
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const BINARY = join(ROOT, "dist", "agent");

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Builds dist/agent only when it is missing or older than what it is built from. */
export function ensureBinary(): void {
  let built = 0;
  try {
    built = statSync(BINARY).mtimeMs;
  } catch {
    built = 0;
  }
  const sources = Math.max(newestMtime(join(ROOT, "src")), newestMtime(join(ROOT, "tui")), newestMtime(join(ROOT, "build.ts")), newestMtime(join(ROOT, "package.json")));
  if (built > sources) return;
  const proc = Bun.spawnSync(["bun", "run", "build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`bun run build.ts failed: ${proc.stdout}${proc.stderr}`);
}

