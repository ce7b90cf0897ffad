// Which binary is "this agent": the compiled executable itself, or (running from source under bun) the
// CLI entry script; only the first can replace itself.
import { join } from "node:path";

/** Inside a `bun build --compile` binary every module sits under /$bunfs/. */
export const IS_COMPILED = import.meta.path.startsWith("/$bunfs/") || import.meta.path.startsWith("B:\\~BUN\\");

/** The argv prefix that runs this agent again (for the background check). */
export function selfCommand(): string[] {
  return IS_COMPILED ? [process.execPath] : [process.execPath, join(import.meta.dir, "..", "cli", "main.ts")];
}
