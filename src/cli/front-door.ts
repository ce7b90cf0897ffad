// `agent` with no command. On a terminal it opens a new session in the current directory (the
// conversation view). With no provider in a config file and no key, a local server answering on its
// default port is used (a bounded probe); with none, it says how to configure one and offers
// `agent setup` or the offline demo (the scripted `test` provider). With several keys and no choice
// made yet, it asks which provider to start on and remembers the answer. Without a terminal it prints
// the help, as every other command group does.
import { NO_MODEL_HELP } from "../agent/facets/model-choice.ts";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { type CommandSpec, EXIT, type Io, type ParsedArgs } from "../util/cli-command.ts";
import { renderHelp } from "./help.ts";

/** `rootCommand` is passed in by the command tree that runs this, so the two modules do not import each other. */
export async function frontDoorRun(args: ParsedArgs, io: Io, rootCommand: CommandSpec): Promise<number> {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
    io.out(renderHelp(rootCommand, []));
    return EXIT.ok;
  }
  const { newRun } = await import("./session-run.ts");
  const load = () => loadConfig({ cwd: io.cwd, env: io.env });
  let loaded = load();
  const demo = args.flags.demo === true;
  if (!demo) {
    const { useRunningLocalServer, wantsLocalServer } = await import("../providers/local-detect.ts");
    // io.env goes to the daemon, so it configures the same server without probing again.
    if (wantsLocalServer(loaded) && (await useRunningLocalServer(io.env))) loaded = load();
    if (loaded.ok && (loaded.fromEnvironment?.found.length ?? 0) > 1 && !loaded.fromEnvironment!.chosen && !args.flags.model) loaded = await chooseAmongKeys(loaded, io, load);
  }
  // A broken config is reported by the session start with every problem named; only "no model" is ours.
  if (loaded.ok && !loaded.defaults.full && !demo) {
    io.err(`${NO_MODEL_HELP}\n\n`);
    const p = await import("@clack/prompts");
    const answer = await p.select({
      message: "What now?",
      options: [
        { value: "setup", label: "Set up a provider now", hint: "agent setup: pick one, give its key, test it" },
        { value: "demo", label: "Start the offline demo", hint: "scripted answers; nothing leaves this machine" },
        { value: "quit", label: "Quit" },
      ],
      initialValue: "setup",
      output: process.stderr,
    });
    if (p.isCancel(answer) || answer === "quit") return EXIT.ok;
    if (answer === "demo") return newRun({ ...args, flags: { ...args.flags, demo: true } }, io);
    const code = await (await import("./setup-run.ts")).setupRun(args, io);
    if (code !== EXIT.ok) return code;
    loaded = load();
    if (!loaded.defaults.full) return code;
  }
  // The key variables (or a running local server) chose the provider: say which, and how to change it.
  if (loaded.ok && loaded.fromEnvironment?.found.length && loaded.defaults.full && !demo) {
    const { envChoiceLine } = await import("../providers/env-providers.ts");
    io.err(`${envChoiceLine(loaded.fromEnvironment, (args.flags.model as string | undefined) ?? loaded.defaults.full.model)}\n`);
  }
  return newRun(args, io);
}

/** First run with several keys: which provider to start on; remembered under the data root. */
async function chooseAmongKeys(loaded: LoadedConfig, io: Io, load: () => LoadedConfig): Promise<LoadedConfig> {
  const { saveProviderChoice } = await import("../providers/env-providers.ts");
  const p = await import("@clack/prompts");
  const found = loaded.fromEnvironment!.found;
  const answer = await p.select({
    message: "Several provider keys are set. Which provider should agent start on? (asked once; the others stay usable with --model)",
    options: found.map((f) => ({ value: f.name, label: f.title, hint: `key from ${f.keyVar}` })),
    initialValue: found[0]!.name,
    output: process.stderr,
  });
  if (p.isCancel(answer)) return loaded;
  const path = saveProviderChoice(io.env, answer);
  io.err(`Remembered in ${path}; change it with \`agent setup\` or by removing that file.\n`);
  return load();
}
