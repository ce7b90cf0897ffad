// Process-wide crash handlers, installed by the CLI entry for every command but `--version`. This module
// imports nothing: the report code loads only when something actually crashed.
import type { CommandSpec } from "../../util/cli-command.ts";
import type { CrashReport } from "./report.ts";

/** Exit status after a crash (EX_SOFTWARE). */
export const CRASH_EXIT = 70;

/** `commands` loads the CLI's command tree, only when something crashed. */
export function installCrashHandlers(argv: readonly string[], commands: () => Promise<CommandSpec>): void {
  let crashing = false;
  const onCrash = (kind: CrashReport["kind"]) => async (error: unknown) => {
    // A second failure while reporting the first must not loop.
    if (crashing) return;
    crashing = true;
    try {
      const { reportCrash } = await import("./handler.ts");
      await reportCrash({ error, kind, argv, commands: await commands(), env: process.env, err: (t) => void process.stderr.write(t) });
    } catch {
      process.stderr.write(`agent: crashed, and the crash report could not be written\n`);
    } finally {
      process.exit(CRASH_EXIT);
    }
  };
  process.on("uncaughtException", onCrash("uncaught_exception"));
  process.on("unhandledRejection", onCrash("unhandled_rejection"));
}
