// What a simple command really runs, for the rules: `sh -c '...'` and `eval ...` are transparent (their
// inner commands are checked instead), and for deny/ask rules also the command behind leading variable
// assignments and wrappers (`sudo`, `env`, `timeout 5`, `xargs`, ...), so `sudo rm -rf x` meets a
// `shell(rm:*)` deny rule. Allow rules only ever match the command as written.
import { type ShellWord, type SimpleCommand, splitShellCommand } from "./shell-parse.ts";

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash"]);
/** Wrappers that run the command given after them, with the options that consume the next word. */
const WRAPPERS: Record<string, readonly string[]> = {
  sudo: ["-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"],
  doas: ["-u", "-C"],
  env: ["-u", "-C", "-S"],
  command: [],
  builtin: [],
  exec: ["-a"],
  nohup: [],
  time: ["-f", "-o"],
  nice: ["-n"],
  ionice: ["-c", "-n", "-p"],
  timeout: ["-s", "-k", "--signal", "--kill-after"],
  stdbuf: ["-i", "-o", "-e"],
  xargs: ["-I", "-n", "-P", "-L", "-s", "-d", "-E", "-a", "--max-args", "--max-procs", "--delimiter", "--arg-file"],
  watch: ["-n", "-d"],
  strace: ["-e", "-o", "-p"],
};

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function isAssignment(w: ShellWord): boolean {
  return !w.dynamic && ASSIGNMENT.test(w.text);
}

/** The command behind assignments and wrappers, or null when there is none. */
function unwrap(words: ShellWord[]): ShellWord[] | null {
  let i = 0;
  let changed = false;
  for (;;) {
    while (i < words.length && isAssignment(words[i]!)) {
      i++;
      changed = true;
    }
    const head = words[i];
    if (!head || head.dynamic || !(head.text in WRAPPERS)) break;
    const takesValue = WRAPPERS[head.text]!;
    const wrapper = head.text;
    i++;
    changed = true;
    while (i < words.length && words[i]!.text.startsWith("-") && !words[i]!.dynamic) {
      const option = words[i]!.text;
      i++;
      if (option === "--") break;
      if (takesValue.includes(option)) i++;
    }
    // `timeout 5 cmd`: the duration comes first.
    if (wrapper === "timeout" && i < words.length) i++;
  }
  return changed && i < words.length ? words.slice(i) : null;
}

/** The script of `sh -c SCRIPT` / `bash -lc SCRIPT` / `eval ...`, or undefined when this is not one. */
function innerScript(words: ShellWord[]): { script: string } | { dynamic: true } | undefined {
  const head = words[0];
  if (!head || head.dynamic) return undefined;
  if (head.text === "eval") {
    const args = words.slice(1);
    return args.some((w) => w.dynamic) ? { dynamic: true } : { script: args.map((w) => w.text).join(" ") };
  }
  const name = head.text.slice(head.text.lastIndexOf("/") + 1);
  if (!SHELLS.has(name)) return undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w.dynamic || !w.text.startsWith("-") || w.text === "--") return undefined;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(w.text)) {
      const script = words[i + 1];
      if (!script) return undefined;
      return script.dynamic ? { dynamic: true } : { script: script.text };
    }
  }
  return undefined;
}

export type Expansion = { ok: true; commands: SimpleCommand[] } | { ok: false; reason: string };

const MAX_NESTING = 8;

/** The commands that run, with `sh -c` / `eval` replaced by what they run (recursively). */
export function expandCommands(commands: SimpleCommand[], depth = 0): Expansion {
  const out: SimpleCommand[] = [];
  for (const command of commands) {
    const inner = innerScript(command.words);
    if (!inner) {
      out.push(command);
      continue;
    }
    if ("dynamic" in inner) return { ok: false, reason: "the script given to a shell or eval is only known at run time" };
    if (depth >= MAX_NESTING) return { ok: false, reason: "shells are nested too deeply" };
    const split = splitShellCommand(inner.script);
    if (!split.ok) return { ok: false, reason: `the script given to '${command.words[0]!.text}' cannot be read: ${split.reason}` };
    const expanded = expandCommands(split.commands, depth + 1);
    if (!expanded.ok) return expanded;
    out.push(...expanded.commands);
  }
  return { ok: true, commands: out };
}

/** Every form of a command that deny and ask rules are checked against: as written, and unwrapped. */
export function restrictiveForms(command: SimpleCommand, depth = 0): Expansion {
  const forms: SimpleCommand[] = [command];
  const unwrapped = unwrap(command.words);
  if (unwrapped) {
    const expanded = expandCommands([{ words: unwrapped }], depth + 1);
    if (!expanded.ok) return expanded;
    for (const c of expanded.commands) {
      if (depth >= MAX_NESTING) return { ok: false, reason: "wrappers are nested too deeply" };
      const more = restrictiveForms(c, depth + 1);
      if (!more.ok) return more;
      forms.push(...more.commands);
    }
  }
  return { ok: true, commands: forms };
}

/** A word as it would be typed: bare when safe, else single-quoted. */
export function quoteWord(text: string): string {
  if (text !== "" && /^[A-Za-z0-9_@%+=:,./~^-]+$/.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The rule text that allows this command: exact, or a prefix up to its first run-time word. */
export function suggestShellRule(command: SimpleCommand): string {
  const fixed: string[] = [];
  for (const w of command.words) {
    if (w.dynamic) return `shell(${fixed.map(quoteWord).join(" ")}:*)`;
    fixed.push(w.text);
  }
  return `shell(${fixed.map(quoteWord).join(" ")})`;
}
