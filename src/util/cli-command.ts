// The declarative command tree: every command states its flags and positionals so that parsing,
// `--help` at every level and "did you mean" errors come from one description.

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether stdout is a terminal (colors, tables) or a pipe (plain text). */
  isTty: boolean;
  cwd: string;
  env: Record<string, string | undefined>;
  stdin(): Promise<string>;
}

export interface FlagSpec {
  name: string;
  /** boolean flags take no value; string flags take the next argument or `--name=value`. */
  type: "boolean" | "string";
  summary: string;
  valueName?: string;
  choices?: readonly string[];
  /** A flag that may be given several times collects every value. */
  repeatable?: boolean;
}

export interface PositionalSpec {
  name: string;
  summary: string;
  required?: boolean;
  /** The last positional may take every remaining argument (e.g. a command line after `--`). */
  variadic?: boolean;
}

export interface ParsedArgs {
  flags: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** The command path as typed, e.g. ["config", "validate"]. */
  path: string[];
}

export type CommandRun = (args: ParsedArgs, io: Io) => Promise<number>;

export interface CommandSpec {
  name: string;
  summary: string;
  /** Longer text shown under the usage line by `--help`. */
  description?: string;
  flags?: FlagSpec[];
  positionals?: PositionalSpec[];
  subcommands?: CommandSpec[];
  /** Imports the implementation lazily so that `agent --version` loads nothing else. */
  run?: CommandRun;
  examples?: string[];
}

/** Exit codes used by every command. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** A command that fails with a message meant for the user (no stack trace), and an exit code. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT.failure) {
    super(message);
    this.name = "CliError";
  }
}
