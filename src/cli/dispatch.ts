// argv -> the command in the tree, its flags and positionals; `--help` at every level.
import { type CommandSpec, type FlagSpec, type Io, type ParsedArgs, CliError, EXIT, UsageError } from "../util/cli-command.ts";
import { renderHelp } from "./help.ts";
import { didYouMean, suggestOrList } from "../util/did-you-mean.ts";

const HELP_FLAG: FlagSpec = { name: "help", type: "boolean", summary: "Show help for this command" };

interface Resolved {
  command: CommandSpec;
  path: string[];
  rest: string[];
}

/** Walks subcommand names from the front of argv; flags before the last command name are not allowed. */
function resolve(root: CommandSpec, argv: string[]): Resolved {
  let command = root;
  const path: string[] = [];
  let i = 0;
  while (command.subcommands && i < argv.length) {
    const word = argv[i]!;
    if (word.startsWith("-")) break;
    const next = command.subcommands.find((c) => c.name === word);
    if (!next) {
      const where = path.length ? `agent ${path.join(" ")}` : "agent";
      throw new UsageError(
        `unknown command '${word}' for '${where}'${suggestOrList(word, command.subcommands.map((c) => c.name))}`,
      );
    }
    command = next;
    path.push(word);
    i++;
  }
  return { command, path, rest: argv.slice(i) };
}

export function parseFlags(command: CommandSpec, path: string[], rest: string[]): ParsedArgs {
  const specs = [...(command.flags ?? []), HELP_FLAG];
  const flags: ParsedArgs["flags"] = {};
  const positionals: string[] = [];
  const where = path.length ? `agent ${path.join(" ")}` : "agent";
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--") {
      positionals.push(...rest.slice(i + 1));
      break;
    }
    if (arg === "-h") {
      flags.help = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "-") {
      if (arg.startsWith("-") && arg !== "-") {
        throw new UsageError(`unknown flag '${arg}' for '${where}'${suggestOrList(arg.replace(/^-+/, "--"), specs.map((s) => `--${s.name}`))}`);
      }
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const spec = specs.find((s) => s.name === name);
    if (!spec) {
      throw new UsageError(`unknown flag '--${name}' for '${where}'${suggestOrList(`--${name}`, specs.map((s) => `--${s.name}`))}`);
    }
    let value: string | boolean;
    if (spec.type === "boolean") {
      if (eq !== -1) throw new UsageError(`flag '--${name}' takes no value`);
      value = true;
    } else if (eq !== -1) {
      value = arg.slice(eq + 1);
    } else {
      const next = rest[i + 1];
      if (next === undefined) throw new UsageError(`flag '--${name}' needs a value (${spec.valueName ?? "VALUE"})`);
      value = next;
      i++;
    }
    if (typeof value === "string" && spec.choices && !spec.choices.includes(value)) {
      throw new UsageError(
        `invalid value '${value}' for '--${name}'; allowed: ${spec.choices.join(", ")}${didYouMean(value, spec.choices, "'")}`,
      );
    }
    if (spec.repeatable && typeof value === "string") {
      const list = (flags[name] as string[] | undefined) ?? [];
      list.push(value);
      flags[name] = list;
    } else {
      flags[name] = value;
    }
  }
  if (flags.help) return { flags, positionals, path };
  const specsPos = command.positionals ?? [];
  const required = specsPos.filter((p) => p.required).length;
  if (positionals.length < required) {
    const missing = specsPos.filter((p) => p.required)[positionals.length]!;
    throw new UsageError(`missing argument <${missing.name}> for '${where}'`);
  }
  if (positionals.length > specsPos.length && !specsPos.at(-1)?.variadic) {
    const extra = positionals[specsPos.length]!;
    throw new UsageError(
      `unexpected argument '${extra}' for '${where}'${command.subcommands ? didYouMean(extra, command.subcommands.map((c) => c.name), "'") : ""}`,
    );
  }
  return { flags, positionals, path };
}

/** Runs argv against the tree and returns the process exit code; never throws. */
export async function dispatch(root: CommandSpec, argv: string[], io: Io): Promise<number> {
  let resolved: Resolved;
  let args: ParsedArgs;
  try {
    resolved = resolve(root, argv);
    args = parseFlags(resolved.command, resolved.path, resolved.rest);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`agent: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
  const { command, path } = resolved;
  if (args.flags.help || !command.run) {
    io.out(renderHelp(command, path));
    return args.flags.help || path.length === 0 ? EXIT.ok : EXIT.usage;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`agent: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof CliError) {
      io.err(`agent: ${error.message}\n`);
      return error.exitCode;
    }
    // A command that threw something unexpected is a crash: the report's path is printed with the error.
    const { reportCrash } = await import("../platform/crash/handler.ts");
    await reportCrash({ error, kind: "internal_error", argv, commands: root, env: io.env, err: io.err });
    return EXIT.failure;
  }
}
