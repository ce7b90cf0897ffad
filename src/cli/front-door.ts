// `agent` with no command. On a terminal it opens a new session in the current directory (the
// conversation view); with no model provider configured it says so plainly — how to set a key or point at
// a local OpenAI-compatible server — and offers the offline demo (the scripted `test` provider). Without a
// terminal it prints the help, as every other command group does.
import { NO_MODEL_HELP } from "../agent/facets/model-choice.ts";
import { loadConfig } from "../config/load.ts";
import { EXIT, type Io, type ParsedArgs } from "./command.ts";
import { renderHelp } from "./help.ts";
import { rootCommand } from "./commands.ts";

export async function frontDoorRun(args: ParsedArgs, io: Io): Promise<number> {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
    io.out(renderHelp(rootCommand, []));
    return EXIT.ok;
  }
  const { newRun } = await import("./session-run.ts");
  const loaded = loadConfig({ cwd: io.cwd, env: io.env });
  // A broken config is reported by the session start with every problem named; only "no model" is ours.
  if (loaded.ok && !loaded.defaults.full && args.flags.demo !== true) {
    io.err(`${NO_MODEL_HELP}\n\n`);
    const { confirm, isCancel } = await import("@clack/prompts");
    const answer = await confirm({ message: "Start the offline demo now? (scripted answers; nothing leaves this machine)", initialValue: true, output: process.stderr });
    if (isCancel(answer) || answer !== true) return EXIT.ok;
    return newRun({ ...args, flags: { ...args.flags, demo: true } }, io);
  }
  // The key variables chose the provider: say which, and how to change it, before the view opens.
  if (loaded.ok && loaded.fromEnvironment?.found.length && loaded.defaults.full && args.flags.demo !== true) {
    const { envChoiceLine } = await import("../providers/env-providers.ts");
    io.err(`${envChoiceLine(loaded.fromEnvironment, (args.flags.model as string | undefined) ?? loaded.defaults.full.model)}\n`);
  }
  return newRun(args, io);
}
