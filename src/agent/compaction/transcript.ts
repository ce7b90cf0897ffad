// What the mini model reads when it writes the summary (daemon.compaction_model: mini), and what the
// session's model reads when its own request cannot be reused (an overflow, a failed first attempt): the
// part of the context being compacted, rendered as plain text (so any dialect takes it and no tool-call
// pairing rules apply), stripped harder at each retry level and cut from the oldest end to fit the window.
import type { ConversationEntry, UserMessage } from "../conversation.ts";
import { CHARS_PER_TOKEN } from "./estimate.ts";
import { filesTouched, type FilesTouched } from "./files.ts";

/**
 * Per retry level: how long a tool output may be before it is cut to its head and tail (`output`), how
 * many characters of the newest outputs stay whole whatever their size (`recent`), how much of an
 * argument list stays, and which share of the entries. Level 0 keeps what the work was most likely
 * about: the newest outputs whole, older long ones by their first and last lines.
 */
const LEVELS = [
  { output: 8_000, recent: 48_000, args: 2_000, keepShare: 1, outputs: true, tools: true },
  { output: 300, recent: 0, args: 300, keepShare: 1, outputs: true, tools: true },
  { output: 0, recent: 0, args: 200, keepShare: 0.5, outputs: false, tools: true },
  { output: 0, recent: 0, args: 0, keepShare: 0.25, outputs: false, tools: false },
] as const;

type Level = (typeof LEVELS)[number];

export const MAX_STRIP_LEVEL = LEVELS.length - 1;

/** How user messages are labelled for the summarizer, by origin; unlabelled origins are left out. */
const USER_LABELS: Partial<Record<UserMessage["origin"], string>> = { prompt: "user", handoff: "plan handed over", notification: "notification" };

export interface Transcript {
  text: string;
  /** Entries left out at the old end (stripping or the size budget). */
  omitted: number;
  files: FilesTouched;
}

/**
 * `text` within `max` characters: its head (60%) and tail, each ending at a line break when one is near,
 * so no line is shown half.
 */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return `[${text.length} characters omitted]`;
  let head = text.slice(0, Math.ceil(max * 0.6));
  let tail = text.slice(text.length - (max - head.length));
  const headBreak = head.lastIndexOf("\n");
  if (headBreak > head.length * 0.5) head = head.slice(0, headBreak + 1);
  const tailBreak = tail.indexOf("\n");
  if (tailBreak >= 0 && tailBreak < tail.length * 0.5) tail = tail.slice(tailBreak + 1);
  const omitted = text.length - head.length - tail.length;
  return `${head.endsWith("\n") ? head : `${head}\n`}[... ${omitted} characters omitted ...]\n${tail}`;
}

/** The call ids whose outputs stay whole: the newest ones, within `budget` characters together. */
function recentOutputs(entries: readonly ConversationEntry[], budget: number): Set<string> {
  const whole = new Set<string>();
  let used = 0;
  for (let i = entries.length - 1; i >= 0 && used < budget; i--) {
    const e = entries[i]!;
    if (e.role !== "tool_results") continue;
    for (const r of [...e.results].reverse()) {
      if (used + r.output.length > budget) return whole;
      used += r.output.length;
      whole.add(r.call_id);
    }
  }
  return whole;
}

function render(entry: ConversationEntry, level: Level, whole: ReadonlySet<string>): string {
  if (entry.role === "user") {
    // Reminders and continuation prompts are the engine talking to the model: nothing to summarize.
    const label = USER_LABELS[entry.origin];
    if (!label) return "";
    const text = entry.content.map((p) => (p.type === "text" ? p.text : `[image ${p.media_type}]`)).join("\n");
    return `[${label}]\n${text}`;
  }
  if (entry.role === "assistant") {
    const lines: string[] = [];
    for (const p of entry.content) {
      if (p.type === "text" && p.text.trim()) lines.push(`[assistant]\n${p.text}`);
      else if (p.type === "tool_call" && level.tools) lines.push(`[assistant called ${p.name}] ${cut(JSON.stringify(p.arguments), level.args)}`);
    }
    return lines.join("\n");
  }
  if (!level.tools) return "";
  return entry.results
    .map((r) => {
      // The summarizer reads text only: an image is named, never sent.
      const images = r.images?.length ? ` [${r.images.length === 1 ? "an image" : `${r.images.length} images`} not shown]` : "";
      const head = `[result of ${r.name}: ${r.status}]${images}`;
      if (!level.outputs) return `${head} [output omitted]`;
      return `${head}\n${whole.has(r.call_id) ? r.output : cut(r.output, level.output)}`;
    })
    .join("\n");
}

/**
 * The transcript at a strip level (0 = fullest), at most `maxTokens` long: older entries go first when it
 * does not fit, and the newest entry is cut to size rather than dropped.
 */
export function renderTranscript(entries: readonly ConversationEntry[], level: number, maxTokens: number): Transcript {
  const l = LEVELS[Math.min(level, MAX_STRIP_LEVEL)]!;
  const from = entries.length - Math.ceil(entries.length * l.keepShare);
  const budget = Math.max(0, maxTokens * CHARS_PER_TOKEN);
  const whole = recentOutputs(entries, l.recent);
  const blocks: string[] = [];
  let size = 0;
  let i = entries.length - 1;
  for (; i >= from; i--) {
    const block = render(entries[i]!, l, whole);
    if (!block) continue;
    if (size + block.length + 2 > budget) {
      if (blocks.length === 0) {
        blocks.push(cut(block, Math.max(0, budget - 200)));
        i--;
      }
      break;
    }
    blocks.push(block);
    size += block.length + 2;
  }
  const omitted = i + 1;
  const text = [omitted > 0 ? `[${omitted} earlier messages left out]` : "", ...blocks.reverse()].filter(Boolean).join("\n\n");
  return { text, omitted, files: filesTouched(entries) };
}
