// Turns a command's body into the prompt the model receives: `$ARGUMENTS` (all arguments), `$1`..`$9`
// (one each); arguments given to a body without placeholders follow it as `ARGUMENTS: ...` (as Claude
// Code does); `@path` names a project file whose content is added below the text (within the context-file
// size cap, never from outside the project nor a secret file, and only when the permission rules allow
// reading it without asking: a command must not show the model what a `read` would be refused or
// asked about); `!command` lines and inline !`command` run
// through runPersonShell and are replaced by their output. Shell lines run as written: arguments are not
// put into them, so what the trust review showed is what runs.
import { resolve } from "node:path";
import { shellLines } from "../../../config/trust/project-commands.ts";
import { loadContextFile } from "../../context/context-file.ts";

/** At most this much file content is added to one prompt; references beyond it are named, not inlined. */
export const MAX_INLINED_BYTES = 256 * 1024;

export interface ExpandDeps {
  projectRoot: string;
  cwd: string;
  followSymlinks: boolean;
  isSecretFile?(absolute: string): boolean;
  /** Why the rules do not let the file be read without asking; null when they allow it. */
  mayRead?(absolute: string): Promise<string | null>;
  /** Runs one shell line; null: shell lines may not run (the text says why in `refusal`). */
  runShell: ((command: string) => Promise<{ output: string } | { refused: string }>) | null;
  /** Why shell lines do not run when `runShell` is null. */
  shellRefusal?: string;
}

export interface Expanded {
  text: string;
  /** What the person should know: files not inlined, shell lines refused. */
  notes: string[];
}

export function substituteArguments(text: string, args: readonly string[]): { text: string; used: boolean } {
  let used = false;
  const out = text.replace(/\$(ARGUMENTS|[1-9])/g, (_, which: string) => {
    used = true;
    return which === "ARGUMENTS" ? args.join(" ") : (args[Number(which) - 1] ?? "");
  });
  return { text: out, used };
}

export async function expandCommand(body: string, args: readonly string[], deps: ExpandDeps): Promise<Expanded> {
  const notes: string[] = [];
  const parts: string[] = [];
  let used = false;
  let from = 0;
  const template = (segment: string) => {
    const r = substituteArguments(segment, args);
    used ||= r.used;
    return r.text;
  };
  for (const line of shellLines(body)) {
    const at = body.indexOf(line.match, from);
    parts.push(template(body.slice(from, at)));
    from = at + line.match.length;
    if (!deps.runShell) {
      notes.push(`\`${line.command}\` was not run: ${deps.shellRefusal ?? "shell lines cannot run here"}`);
      parts.push(`[not run: ${line.command}]`);
      continue;
    }
    const r = await deps.runShell(line.command);
    if ("refused" in r) {
      notes.push(`\`${line.command}\` was not run: ${r.refused}`);
      parts.push(`[not run: ${line.command}]`);
    } else parts.push(line.match.startsWith("!`") ? r.output.trim() : `$ ${line.command}\n${r.output.trimEnd()}`);
  }
  parts.push(template(body.slice(from)));
  let text = parts.join("");
  if (!used && args.length) text = `${text}\n\nARGUMENTS: ${args.join(" ")}`;
  return { text: `${text}${await inlineFiles(text, deps, notes)}`, notes };
}

/** The `@path` references of `text` that are project files, as blocks to add below it. */
export async function inlineFiles(text: string, deps: Omit<ExpandDeps, "runShell">, notes: string[]): Promise<string> {
  const blocks: string[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const m of text.matchAll(/(?:^|\s)@([A-Za-z0-9_.~/-][^\s`'"]*)/g)) {
    const ref = m[1]!.replace(/[.,;:!?)\]]+$/, "");
    if (seen.has(ref)) continue;
    seen.add(ref);
    const path = resolve(deps.cwd, ref);
    if (deps.isSecretFile?.(path)) {
      notes.push(`@${ref} was not inlined: it is a secret file (permissions.secret_files)`);
      continue;
    }
    const refused = await deps.mayRead?.(path);
    if (refused) {
      notes.push(`@${ref} was not inlined: ${refused}`);
      continue;
    }
    const read = loadContextFile(path, deps.followSymlinks, deps.projectRoot);
    // Not a file (a mention of someone, a folder): left as written.
    if (read === null) continue;
    if ("problem" in read) {
      if (!/EISDIR/.test(read.problem)) notes.push(`@${ref} was not inlined: ${read.problem}`);
      continue;
    }
    total += Buffer.byteLength(read.text);
    if (total > MAX_INLINED_BYTES) {
      notes.push(`@${ref} was not inlined: the command's files passed ${MAX_INLINED_BYTES / 1024} KiB`);
      continue;
    }
    blocks.push(`<file path="${ref}">\n${read.text}\n</file>`);
  }
  return blocks.length ? `\n\n${blocks.join("\n\n")}` : "";
}
