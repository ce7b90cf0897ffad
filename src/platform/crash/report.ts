// What a crash report holds: the version, the role and command (names only: never argument values, which
// can be prompt text), the error's type, message and stack, and the runtime; every text is scrubbed of
// secrets: the environment's secret-named values and token shapes (one redaction helper, src/util).
import type { CommandSpec } from "../../util/cli-command.ts";
import { isSecretKey, redactText } from "../../util/redact.ts";
import { VERSION } from "../../version.ts";

export type CrashRole = "cli" | "daemon" | "gateway";

export interface CrashReport {
  format: 1;
  id: string;
  created_at: string;
  version: string;
  role: CrashRole;
  /** `agent <subcommands>`: the command path as typed, without arguments. */
  command: string;
  /** Names of the flags given (`--model`), never their values. */
  flags: string[];
  /** `uncaught_exception`, `unhandled_rejection` or `internal_error` (a command that threw). */
  kind: "uncaught_exception" | "unhandled_rejection" | "internal_error";
  error: { type: string; message: string; stack: string[] };
  runtime: { bun: string; platform: string; arch: string };
}

/** Messages can quote input; a report keeps the start, enough to recognise the failure. */
const MAX_MESSAGE_CHARS = 500;
const MAX_STACK_LINES = 40;

/**
 * The command path and flag names of argv, read against the command tree: only real subcommand names
 * and the command's declared flags are kept, so no argument (a prompt, a path, a value) can slip in.
 */
export function describeArgv(argv: readonly string[], root: CommandSpec): { command: string; flags: string[] } {
  const words: string[] = [];
  let command = root;
  let i = 0;
  for (; i < argv.length; i++) {
    const next = command.subcommands?.find((c) => c.name === argv[i]);
    if (!next) break;
    command = next;
    words.push(next.name);
  }
  const declared = new Set(["help", ...(command.flags ?? []).map((f) => f.name)]);
  const given = argv.slice(i).filter((a) => a.startsWith("--")).map((a) => a.slice(2).split("=")[0]!);
  return { command: ["agent", ...words].join(" "), flags: [...new Set(given.filter((n) => declared.has(n)))].map((n) => `--${n}`) };
}

export function roleOf(argv: readonly string[]): CrashRole {
  if (argv[0] === "daemon") return "daemon";
  if (argv[0] === "gateway" && argv[1] === "serve") return "gateway";
  return "cli";
}

/** Values of secret-named environment variables (`*_API_KEY`, `*_TOKEN`, ...), scrubbed wherever they appear. */
export function environmentSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value && value.length >= 4 && (isSecretKey(name) || /(_KEY|_TOKEN|_SECRET|_PASSWORD)$/i.test(name)))
    .map(([, value]) => value!);
}

export interface CrashInput {
  error: unknown;
  kind: CrashReport["kind"];
  argv: readonly string[];
  /** The CLI's command tree (src/cli/commands.ts), to tell command names from arguments. */
  commands: CommandSpec;
  env: Readonly<Record<string, string | undefined>>;
  /** More values to scrub (the config's secrets, when they are known). */
  secrets?: readonly string[];
  now?: Date;
  id: string;
}

export function buildCrashReport(input: CrashInput): CrashReport {
  const secrets = [...environmentSecrets(input.env), ...(input.secrets ?? [])];
  const scrub = (text: string) => redactText(text, secrets);
  const error = input.error instanceof Error ? input.error : new Error(typeof input.error === "string" ? input.error : `non-error value thrown (${typeof input.error})`);
  const message = scrub(error.message.length > MAX_MESSAGE_CHARS ? `${error.message.slice(0, MAX_MESSAGE_CHARS)}…` : error.message);
  // The stack's first line repeats the message: the frames alone are kept.
  const frames = (error.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l)).slice(0, MAX_STACK_LINES).map((l) => scrub(l.trim()));
  return {
    format: 1,
    id: input.id,
    created_at: (input.now ?? new Date()).toISOString(),
    version: VERSION,
    role: roleOf(input.argv),
    ...describeArgv(input.argv, input.commands),
    kind: input.kind,
    error: { type: error.name || "Error", message, stack: frames },
    runtime: { bun: Bun.version, platform: process.platform, arch: process.arch },
  };
}
