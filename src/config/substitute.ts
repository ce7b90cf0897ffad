// `${VAR}` environment references and, when the global config enables it, `$(command)` and
// `${VAR:-command}` command substitution. `$$` writes a literal `$`.
import { isSecretKey } from "../util/redact.ts";
import type { KeyPath, ProblemList } from "./problems.ts";
import type { Env } from "./files.ts";

export interface SubstitutionOptions {
  env: Env;
  /** Whether commands may run: only for the global layer, and only when it sets config_command_substitution. */
  commandsAllowed: boolean;
  /** Why commands may not run, for the error message. */
  commandsRefusedBecause: string;
  /** Shared across layers so each distinct command runs once per load. */
  commandCache: Map<string, string | Error>;
  timeoutMs: number;
  cwd: string;
  /** Values that came from the environment or a command; redacted when shown. */
  secrets: Set<string>;
}

/** Environment variable names that usually hold secrets; their values are redacted wherever shown. */
const SECRET_VAR = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|AUTH|CREDENTIAL|COOKIE)/i;

const TOKEN = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\(((?:[^()]|\([^()]*\))*)\)|\$\{[^}]*\}?|\$\(/g;

function runCommand(command: string, opts: SubstitutionOptions): string | Error {
  const cached = opts.commandCache.get(command);
  if (cached !== undefined) return cached;
  let result: string | Error;
  try {
    const proc = Bun.spawnSync(["/bin/sh", "-c", command], {
      cwd: opts.cwd,
      env: opts.env as Record<string, string>,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: opts.timeoutMs,
    });
    if (proc.exitedDueToTimeout) result = new Error(`the command timed out after ${opts.timeoutMs} ms`);
    else if (proc.exitCode !== 0) result = new Error(`the command exited with status ${proc.exitCode ?? proc.signalCode}`);
    else result = proc.stdout.toString().replace(/\r?\n$/, "");
  } catch (error) {
    result = new Error(`the command could not be started (${(error as Error).name})`);
  }
  opts.commandCache.set(command, result);
  return result;
}

/** The environment variables a value refers to (`${VAR}`, `${VAR:-command}`); `$$` escapes are not references. */
export function envReferences(value: string): string[] {
  if (!value.includes("$")) return [];
  return [...value.matchAll(TOKEN)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]));
}

/** Substitutes one string; reports problems against `path` and returns the new value (or the original on error). */
export function substituteString(value: string, path: KeyPath, opts: SubstitutionOptions, out: ProblemList): string {
  if (!value.includes("$")) return value;
  let failed = false;
  const result = value.replace(TOKEN, (match, name: string | undefined, fallback: string | undefined, command: string | undefined) => {
    if (match === "$$") return "$";
    if (name !== undefined) {
      const set = opts.env[name];
      if (set !== undefined && (fallback === undefined || set !== "")) {
        if (SECRET_VAR.test(name) || isSecretKey(String(path.at(-1) ?? ""))) opts.secrets.add(set);
        return set;
      }
      if (fallback === undefined) {
        failed = true;
        out.error(path, `environment variable ${name} is not set`);
        return match;
      }
      command = fallback;
    }
    if (command !== undefined) {
      if (!opts.commandsAllowed) {
        failed = true;
        out.error(path, `command substitution is not run here: ${opts.commandsRefusedBecause}; write '$$' for a literal '$'`);
        return match;
      }
      const output = runCommand(command, opts);
      if (output instanceof Error) {
        failed = true;
        out.error(path, `command substitution failed: ${output.message}`);
        return match;
      }
      opts.secrets.add(output);
      return output;
    }
    failed = true;
    out.error(path, match === "$(" ? "unclosed '$(' (no matching ')')" : `malformed reference '${match}'`, { allowed: "${VAR}, ${VAR:-command}, $(command), or $$ for a literal $" });
    return match;
  });
  return failed ? value : result;
}

/** Walks every string value (not keys) of a parsed layer. */
/** Top-level blocks of shell text run later (hook commands): `$VAR` and `$(cmd)` are the shell's to expand, not the loader's. */
const VERBATIM_BLOCKS = new Set(["hooks"]);

export function substituteTree(value: unknown, path: KeyPath, opts: SubstitutionOptions, out: ProblemList): unknown {
  if (typeof value === "string") return substituteString(value, path, opts, out);
  if (Array.isArray(value)) return value.map((item, i) => substituteTree(item, [...path, i], opts, out));
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const result: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) result[key] = path.length === 0 && VERBATIM_BLOCKS.has(key) ? inner : substituteTree(inner, [...path, key], opts, out);
    return result;
  }
  return value;
}
