// `/undo [--keep | --force]`: puts back the files the last turn changed (src/agent/checkpoints/).
import { undo, type ConflictChoice } from "../checkpoints/rewind.ts";
import { SessionCommandError, type SessionCommand } from "./types.ts";

export const undoCommand: SessionCommand = {
  name: "undo",
  usage: "/undo [--keep | --force]",
  summary: "Put back the files the last turn changed (a file changed since is kept with --keep, overwritten with --force)",
  whileBusy: false,
  async run({ session, services }, args) {
    const choice = conflictChoice(args, "/undo [--keep | --force]");
    if (args.some((a) => !a.startsWith("--"))) throw new SessionCommandError("invalid_command", "usage: /undo [--keep | --force]");
    if (!services.checkpoints) throw new SessionCommandError("command_unavailable", "this session keeps no restore points");
    return undo(session, services.checkpoints, choice);
  },
};

/** `--keep` or `--force` (at most one); any other option is an error naming the usage. */
export function conflictChoice(args: readonly string[], usage: string): ConflictChoice {
  const options = args.filter((a) => a.startsWith("--"));
  const unknown = options.find((o) => o !== "--keep" && o !== "--force");
  if (unknown) throw new SessionCommandError("invalid_command", `unknown option ${unknown}; usage: ${usage}`);
  if (options.includes("--keep") && options.includes("--force")) throw new SessionCommandError("invalid_command", `--keep and --force exclude each other; usage: ${usage}`);
  return options.includes("--force") ? "force" : options.includes("--keep") ? "keep" : null;
}
