// `/rewind [PROMPT [code | conversation | both] [--keep | --force]]`: back to before one of the user's
// prompts: the files (code), the conversation, or both. Without arguments it lists the prompts.
import { promptList, rewind, type RewindMode } from "../checkpoints/rewind.ts";
import { SessionCommandError, type SessionCommand } from "./types.ts";
import { conflictChoice } from "./undo.ts";

const USAGE = "/rewind [PROMPT [code | conversation | both] [--keep | --force]]";
const MODES = ["code", "conversation", "both"];

export const rewindCommand: SessionCommand = {
  name: "rewind",
  usage: USAGE,
  summary: "Go back to before one of your prompts: files, conversation, or both (no arguments: list the prompts)",
  whileBusy: false,
  async run({ session, services }, args) {
    const checkpoints = services.checkpoints;
    if (!checkpoints) throw new SessionCommandError("command_unavailable", "this session keeps no restore points");
    const choice = conflictChoice(args, USAGE);
    const words = args.filter((a) => !a.startsWith("--"));
    if (words.length === 0) {
      const prompts = promptList(session, checkpoints);
      const lines = prompts.map((p) => `${p.n}. ${p.text.split("\n")[0]}${p.files ? ` (${p.files} file${p.files === 1 ? "" : "s"} changed)` : ""}`);
      return { message: prompts.length ? `Prompts (rewind with /rewind N [code | conversation | both]):\n${lines.join("\n")}` : "No prompts to rewind to yet.", data: { prompts } };
    }
    const [target, mode = "both", ...rest] = words;
    if (rest.length > 0 || !MODES.includes(mode)) throw new SessionCommandError("invalid_command", `usage: ${USAGE}; what to rewind is one of ${MODES.join(", ")} (got '${mode}')`);
    return rewind(session, checkpoints, target!, mode as RewindMode, choice);
  },
};
