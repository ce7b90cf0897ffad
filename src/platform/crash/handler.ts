// Handling a crash in any role: build the redacted report, write it under the data root, send it when
// the global `data` block says so, and tell the user on stderr where it is.
import { DataConfig } from "../../config/schema/session.ts";
import type { CommandSpec } from "../../util/cli-command.ts";
import { globalBlock, literalSecrets, readGlobalLayer } from "../global-layer.ts";
import { buildCrashReport, type CrashReport } from "./report.ts";
import { sendCrashReport, type DataBlock } from "./send.ts";
import { crashReportDir, newCrashId, writeCrashReport } from "./store.ts";

export interface CrashContext {
  error: unknown;
  kind: CrashReport["kind"];
  argv: readonly string[];
  /** The CLI's command tree, to tell command names from arguments in argv. */
  commands: CommandSpec;
  env: Readonly<Record<string, string | undefined>>;
  err: (text: string) => void;
  fetch?: typeof fetch;
}

/**
 * The global `data` block and the literal secrets of the global file, read as written: a crash handler
 * must not run the config's `$(command)` substitutions (a password prompt while crashing). Substituted
 * secrets come from the environment, which the report scrubs anyway.
 */
function configFacts(ctx: CrashContext): { data: DataBlock | null; secrets: string[] } {
  const layer = readGlobalLayer(ctx.env);
  return { data: globalBlock(layer, "data", DataConfig), secrets: literalSecrets(layer) };
}

/** Writes (and maybe sends) the report; returns its path, or null when it could not be written. */
export async function reportCrash(ctx: CrashContext): Promise<string | null> {
  const { data, secrets } = configFacts(ctx);
  const now = new Date();
  const report = buildCrashReport({ error: ctx.error, kind: ctx.kind, argv: ctx.argv, commands: ctx.commands, env: ctx.env, secrets, now, id: newCrashId(now) });
  const what = ctx.kind === "internal_error" ? "internal error" : "crashed";
  ctx.err(`agent: ${what}: ${report.error.type}: ${report.error.message}\n`);
  let path: string | null = null;
  try {
    path = writeCrashReport(crashReportDir(ctx.env), report);
  } catch (error) {
    ctx.err(`agent: the crash report could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})\n`);
  }
  const sent = await sendCrashReport(report, data, ctx.fetch);
  const note = sent.sent ? ` and sent to ${sent.origin}` : sent.reason === "failed" ? `; sending it to ${sent.origin} failed (${sent.detail})` : "; nothing was sent (data.automatic_crash_reporting is off)";
  if (path) ctx.err(`agent: a crash report was written to ${path}${note}\n`);
  return path;
}
