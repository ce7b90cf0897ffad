// `/autonomy [ask | accept_edits | sandboxed]`: shows or changes what runs without a question for the
// rest of this session (docs/permissions.md "Sandbox and autonomy"); Shift+Tab in the view cycles it.
// Deny and ask rules hold at every level; `sandboxed` needs the session's sandbox to be running.
import { AUTONOMY_LEVELS } from "../../config/schema/sandbox.ts";
import type { Autonomy } from "../../sandbox/settings.ts";
import { SessionCommandError, type SessionCommand } from "./types.ts";

export const autonomyCommand: SessionCommand = {
  name: "autonomy",
  usage: `/autonomy [${AUTONOMY_LEVELS.join(" | ")}]`,
  summary: "Show or change what runs without a question: ask every time, accept edits, or commands in the sandbox",
  whileBusy: true,
  async run({ services }, args) {
    const control = services.permissions;
    if (!control) throw new SessionCommandError("command_unavailable", "this session's permissions cannot change");
    const describe = () => `autonomy ${control.autonomy} · sandbox ${control.sandbox}`;
    if (args.length === 0) return { message: describe(), data: { autonomy: control.autonomy, sandbox: control.sandbox } };
    const [level, ...rest] = args;
    if (rest.length > 0 || !AUTONOMY_LEVELS.includes(level as Autonomy)) throw new SessionCommandError("invalid_command", `usage: ${autonomyCommand.usage}`);
    try {
      control.setAutonomy(level as Autonomy);
    } catch (error) {
      throw new SessionCommandError("command_unavailable", (error as Error).message);
    }
    return { message: describe(), data: { autonomy: control.autonomy, sandbox: control.sandbox } };
  },
};
