// A config problem: where it is (file, line:column, key path), what is wrong, and what is allowed.

export type KeyPath = readonly (string | number)[];

export interface Problem {
  severity: "error" | "warning";
  /** The file the value came from; absent for problems of the merged result (e.g. a derived value). */
  file?: string;
  line?: number;
  column?: number;
  /** Dotted key path, e.g. `models.big.context_window` or `models["a/b"].class`. */
  path: string;
  message: string;
  /** What would be accepted, when that can be said briefly. */
  allowed?: string;
  /** The key path as parts, used to find the value's file and line. */
  parts?: KeyPath;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Keys longer than this are shortened in messages (the full key is still used to locate the value). */
const MAX_KEY_IN_PATH = 120;

export function formatPath(path: KeyPath): string {
  let out = "";
  for (const raw of path) {
    const part = typeof raw === "string" && raw.length > MAX_KEY_IN_PATH ? `${raw.slice(0, MAX_KEY_IN_PATH)}…(${raw.length} characters)` : raw;
    if (typeof part === "number") out += `[${part}]`;
    else if (PLAIN_KEY.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out || "(root)";
}

export function formatProblem(p: Problem): string {
  const where = p.file ? `${p.file}${p.line ? `:${p.line}:${p.column ?? 1}` : ""}: ` : "";
  const allowed = p.allowed ? ` (allowed: ${p.allowed})` : "";
  return `${where}${p.severity}: ${p.path}: ${p.message}${allowed}`;
}

/** Collects problems during one load; every check reports here instead of throwing. */
export class ProblemList {
  readonly items: Problem[] = [];

  error(path: KeyPath, message: string, extra: Partial<Problem> = {}): void {
    this.items.push({ severity: "error", path: formatPath(path), message, parts: path, ...extra });
  }

  warn(path: KeyPath, message: string, extra: Partial<Problem> = {}): void {
    this.items.push({ severity: "warning", path: formatPath(path), message, parts: path, ...extra });
  }

  get errors(): Problem[] {
    return this.items.filter((p) => p.severity === "error");
  }

  get warnings(): Problem[] {
    return this.items.filter((p) => p.severity === "warning");
  }
}
