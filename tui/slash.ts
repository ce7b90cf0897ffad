// Slash commands typed in the prompt editor. Five are the client's own (/help, /exit, /kill-session, /image, /reload);
// every other `/name args` goes to the daemon as a session command, so commands the engine adds
// (/mcp, /facet, /model, /clear, /compact, ...) work here without a client change.
import { DEFAULT_KEYS, keyName, type KeyMap } from "./keys/keymap.ts";

export interface SlashCommand {
  name: string;
  args: string[];
}

export const LOCAL_COMMANDS = [
  { name: "help", usage: "/help", summary: "List the commands (these and the session's own)" },
  { name: "exit", usage: "/exit", summary: "Detach; the session keeps running (also Ctrl+D)" },
  { name: "kill-session", usage: "/kill-session", summary: "Stop the session and its daemon (asks first), then detach" },
  { name: "image", usage: "/image PATH", summary: "Attach an image to the next prompt (vision models; /image clear drops it)" },
  { name: "reload", usage: "/reload", summary: "Load changed config: restarts the session's daemon (the conversation stays)" },
] as const;

/** `/name a "b c"` -> {name, args}; null when the text is not a command (`//x` sends `/x` as a prompt). */
export function parseSlash(text: string): SlashCommand | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith("/") || trimmed.startsWith("//")) return null;
  const m = /^\/([A-Za-z0-9][\w:-]*)(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (!m) return null;
  return { name: m[1]!.toLowerCase(), args: splitArgs(m[2] ?? "") };
}

/** Splits on whitespace; double or single quotes keep spaces inside one argument. */
export function splitArgs(text: string): string[] {
  const args: string[] = [];
  for (const m of text.matchAll(/"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g)) args.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]!));
  return args;
}

/** `!COMMAND`: a shell command for the person (the session's /shell); null when the text is a prompt. */
export function parseShell(text: string): string | null {
  if (!text.startsWith("!")) return null;
  const command = text.slice(1).trim();
  return command ? command : null;
}

/** The prompt text a `//x` escape stands for. */
export function unescapePrompt(text: string): string {
  return text.trimStart().startsWith("//") ? text.trimStart().slice(1) : text;
}

const USAGE_COLUMN = 16;

/** /help as a table: the view draws the summaries in one column at every width (a wrapped summary stays in it). */
export interface HelpTable {
  /** The width of the usage column: a longer usage gets its summary on the next line. */
  width: number;
  rows: { usage: string; summary: string }[];
  notes: string[];
}

/** `ctrlCInterrupts`: a local session's Ctrl+C interrupts a running turn before it detaches; `keys`: the view's keys (tui.keys). */
export function helpTable(remote: { name: string; usage: string; summary: string }[] | null, remoteError: string | null, ctrlCInterrupts = false, keys: KeyMap = DEFAULT_KEYS): HelpTable {
  const rows = [...LOCAL_COMMANDS, ...(remote ?? []).filter((c) => !LOCAL_COMMANDS.some((l) => l.name === c.name))].map((r) => ({ usage: r.usage, summary: r.summary }));
  // A usage longer than the column gets its summary on the next line, so one long usage does not push
  // every summary to the right edge of a narrow terminal.
  const width = Math.min(USAGE_COLUMN, Math.max(...rows.map((r) => r.usage.length)));
  const notes = remoteError ? [`(the session's own commands are unavailable: ${remoteError})`] : [];
  const named = (action: keyof KeyMap) => keys[action].map(keyName).join(" or ") || "(unbound)";
  notes.push(
    "",
    `Keys: Enter sends · ${named("newline")} new line · Up/Down history`,
    "      / opens the command menu, @ a file and resource picker (Tab or Enter picks, Esc closes)",
    "      !COMMAND runs a shell command; its output goes to the model with your next prompt",
    "      Up on an empty prompt takes back the newest queued input",
    ...(ctrlCInterrupts
      ? [`      ${named("interrupt")} or Ctrl+C interrupts the turn · ${named("details")} details (reasoning, full tool output)`, `      ${named("detach")}, or Ctrl+C with no turn running (or twice), detaches (the session keeps running)`]
      : [`      ${named("interrupt")} interrupts the turn · ${named("details")} details (reasoning, full tool output)`, `      ${named("detach")} or Ctrl+C detach (the session keeps running)`]),
    `      ${named("external_editor")} edits the prompt in $EDITOR · ${named("paste_image")} attaches the clipboard's image`,
    "      tui.keys in the config rebinds these keys (docs/tui.md#keys)",
  );
  return { width, rows, notes };
}

/** The /help table as plain text (for a terminal that is not the view, and for tests). */
export function helpText(remote: { name: string; usage: string; summary: string }[] | null, remoteError: string | null, ctrlCInterrupts = false, keys: KeyMap = DEFAULT_KEYS): string {
  const t = helpTable(remote, remoteError, ctrlCInterrupts, keys);
  const lines = t.rows.flatMap((r) => (r.usage.length <= t.width ? [`  ${r.usage.padEnd(t.width)}  ${r.summary}`] : [`  ${r.usage}`, `  ${" ".repeat(t.width)}  ${r.summary}`]));
  for (const note of t.notes) lines.push(note.startsWith("(") ? `  ${note}` : note);
  return ["Commands:", ...lines].join("\n");
}
