// `/init`: asks the model to learn the project and write (or improve) its AGENTS.md. The file is written
// by the model's own file tools, under the session's permissions, like any other change it makes.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { SessionCommand } from "../types.ts";
import PROMPT from "./init-prompt.txt" with { type: "text" };

export function initPrompt(root: string, args: readonly string[]): string {
  const existing = existsSync(join(root, "AGENTS.md")) ? "\nAGENTS.md exists already: read it first, keep what is still true, and improve it rather than start over.\n" : "";
  const extra = args.length ? `\nThe user adds: ${args.join(" ")}\n` : "";
  return PROMPT.replace("{{root}}", root).replace("{{existing}}", existing).replace("{{arguments}}", extra).trim();
}

export const initCommand: SessionCommand = {
  name: "init",
  usage: "/init [what to stress]",
  summary: "Explore the project and write an AGENTS.md for it (written by the model's file tools, with your permission)",
  whileBusy: true,
  async run({ session, runtime }, args) {
    const accepted = session.submit({ text: initPrompt(runtime.toolContext.projectRoot, args) });
    return { message: `asked the model to write AGENTS.md${accepted.queued ? " (queued behind the running turn)" : ""}`, data: { prompt_id: accepted.input_id, queued: accepted.queued } };
  },
};
