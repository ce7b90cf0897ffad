// Custom commands and user-invocable skills as session commands: listed by `GET /commands` (so the TUI's
// `/` menu and ACP's available commands show them) and run by `POST /commands/{name}`, which sends the
// expanded text as the user's prompt.
import { shellLines } from "../../../config/trust/project-commands.ts";
import { readContextFile } from "../../context/context-file.ts";
import { parseFrontmatter } from "../../context/frontmatter.ts";
import type { Skill } from "../../context/skills.ts";
import { ModelChoiceError } from "../../facets/model-choice.ts";
import { SessionCommandError, type CommandContext, type SessionCommand } from "../types.ts";
import { expandCommand, inlineFiles, substituteArguments, type ExpandDeps } from "./expand.ts";
import type { CustomCommandDef } from "./load.ts";
import { runPersonShell } from "./shell-call.ts";

export interface CustomCommandDeps {
  projectRoot: string;
  followSymlinks: boolean;
  /** Whether a project command's shell lines may run: its trust item is trusted (src/config/trust/items.ts). */
  projectShellTrusted(name: string): boolean;
}

/** `allowed-tools` entries for the shell: `Bash(git status:*)`, `shell(git *)`, `Bash` (any). */
export function shellAllowed(allowed: readonly string[] | null, command: string): boolean {
  if (allowed === null) return true;
  return allowed.some((entry) => {
    const m = /^(Bash|shell)(?:\((.*)\))?$/.exec(entry.trim());
    if (!m) return false;
    const pattern = (m[2] ?? "*").trim();
    if (pattern.endsWith(":*")) return command === pattern.slice(0, -2) || command.startsWith(`${pattern.slice(0, -2)} `);
    const re = new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    return re.test(command);
  });
}

function expandDeps(ctx: CommandContext, deps: CustomCommandDeps): Omit<ExpandDeps, "runShell"> {
  const tc = ctx.runtime.toolContext;
  const mayRead = async (path: string) => {
    const d = await ctx.session.checkCall({ tool: "read", input: { path }, cwd: tc.cwd, projectRoot: tc.projectRoot });
    return d.kind === "allow" ? null : d.kind === "deny" ? `the permission rules deny reading it (${d.reason})` : `reading it needs your approval (${d.reason}); the model can read it with its read tool`;
  };
  return { projectRoot: deps.projectRoot, cwd: tc.cwd, followSymlinks: deps.followSymlinks, mayRead, ...(tc.isSecretFile ? { isSecretFile: tc.isSecretFile } : {}) };
}

function sent(what: string, accepted: { input_id: string; queued: boolean }, notes: string[]) {
  const message = [`sent ${what}${accepted.queued ? " (queued behind the running turn)" : ""}`, ...notes].join("\n");
  return { message, data: { prompt_id: accepted.input_id, queued: accepted.queued, ...(notes.length ? { notes } : {}) } };
}

/** Runs the command's turn with its model, then puts back the one before (unless it was switched meanwhile). */
function withModel(ctx: CommandContext, ref: string): () => void {
  const modes = ctx.services.modes;
  if (!modes) throw new SessionCommandError("command_unavailable", `this session cannot switch models, which the command's model: ${ref} needs`);
  const previous = modes.modelRef();
  let event;
  try {
    event = modes.switchModel(ref);
  } catch (error) {
    if (error instanceof ModelChoiceError) throw new SessionCommandError("invalid_command", `the command's model: ${ref}: ${error.message}`);
    throw error;
  }
  if (!event) return () => {};
  modes.applyTo(ctx.runtime);
  ctx.session.record(event);
  const chosen = modes.modelRef();
  return () => {
    if (modes.modelRef() !== chosen) return;
    const back = modes.switchModel(previous);
    if (!back) return;
    modes.applyTo(ctx.runtime);
    ctx.session.record(back);
  };
}

export function customCommand(def: CustomCommandDef, deps: CustomCommandDeps): SessionCommand {
  const runsShell = shellLines(def.body).length > 0;
  return {
    name: def.name,
    usage: `/${def.name}${def.argumentHint ? ` ${def.argumentHint}` : ""}`,
    summary: def.description,
    // Shell lines use the session's one shell, and a model switch must not land in a running turn.
    whileBusy: !runsShell && !def.model,
    async run(ctx, args) {
      const trusted = def.origin === "global" || deps.projectShellTrusted(def.name);
      const runShell: ExpandDeps["runShell"] = trusted
        ? async (command) => {
            if (!shellAllowed(def.allowedTools, command)) return { refused: `the command's allowed-tools (${def.allowedTools!.join(", ")}) do not include it` };
            const r = await runPersonShell(ctx, command);
            return r.ran ? { output: r.output } : { refused: r.message };
          }
        : null;
      const expanded = await expandCommand(def.body, args, {
        ...expandDeps(ctx, deps),
        runShell,
        shellRefusal: `the project's command ${def.path} runs commands, and this project is not trusted (or the file changed since); review it, then run 'agent trust ${deps.projectRoot}'`,
      });
      if (!expanded.text.trim()) throw new SessionCommandError("command_failed", `/${def.name} (${def.path}) expands to nothing; nothing was sent`);
      const restore = def.model ? withModel(ctx, def.model) : null;
      const accepted = ctx.session.submit({ text: expanded.text });
      if (restore) void ctx.session.idle().then(restore);
      return sent(`/${def.name}`, accepted, expanded.notes);
    },
  };
}

/** A skill a person can run as `/name args`: its instructions (read now, as the model would) become the prompt. */
export function skillCommand(skill: Skill, deps: CustomCommandDeps): SessionCommand {
  return {
    name: skill.name,
    usage: `/${skill.name} [arguments]`,
    summary: `${skill.description} (skill)`,
    whileBusy: true,
    async run(ctx, args) {
      const warnings: string[] = [];
      const text = readContextFile(skill.path, deps.followSymlinks, skill.origin === "project" ? deps.projectRoot : null, warnings);
      if (text === null) throw new SessionCommandError("command_failed", warnings[0] ?? `the skill file ${skill.path} is gone`);
      const doc = parseFrontmatter(text);
      if (doc.error) throw new SessionCommandError("command_failed", `the skill ${skill.path}: ${doc.error}`);
      // A skill's shell lines are not run: only command files are reviewed for trust as things that run.
      const substituted = substituteArguments(doc.body, args);
      const body = !substituted.used && args.length ? `${substituted.text}\n\nARGUMENTS: ${args.join(" ")}` : substituted.text;
      const notes: string[] = [];
      const prompt = `Use the skill ${skill.name} (${skill.path}):\n\n${body}${await inlineFiles(body, expandDeps(ctx, deps), notes)}`;
      return sent(`the skill ${skill.name}`, ctx.session.submit({ text: prompt }), notes);
    },
  };
}

/** The custom commands, then the user-invocable skills whose names are free, as session commands. */
export function customSessionCommands(defs: readonly CustomCommandDef[], skills: readonly Skill[], taken: ReadonlySet<string>, deps: CustomCommandDeps, warnings: string[]): SessionCommand[] {
  const out = defs.map((d) => customCommand(d, deps));
  const names = new Set([...taken, ...defs.map((d) => d.name)]);
  for (const skill of skills) {
    if (!skill.userInvocable) continue;
    if (names.has(skill.name)) {
      warnings.push(`the skill ${skill.name} (${skill.path}) is not offered as /${skill.name}: a command has that name`);
      continue;
    }
    out.push(skillCommand(skill, deps));
  }
  return out;
}
