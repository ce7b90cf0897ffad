// What the summarizing model reads: the part of the context being compacted, rendered as plain text (so
// any dialect takes it and no tool-call pairing rules apply), stripped harder at each retry level and
// cut from the oldest end to fit the summarizer's window.
import type { ConversationEntry, UserMessage } from "../conversation.ts";
import { CHARS_PER_TOKEN } from "./estimate.ts";

/** Per retry level: how much of each tool output and argument list stays, and which share of the entries. */
const LEVELS = [
  { output: 4_000, args: 2_000, keepShare: 1, outputs: true, tools: true },
  { output: 300, args: 300, keepShare: 1, outputs: true, tools: true },
  { output: 0, args: 200, keepShare: 0.5, outputs: false, tools: true },
  { output: 0, args: 0, keepShare: 0.25, outputs: false, tools: false },
] as const;

export const MAX_STRIP_LEVEL = LEVELS.length - 1;

/** How user messages are labelled for the summarizer, by origin; unlabelled origins are left out. */
const USER_LABELS: Partial<Record<UserMessage["origin"], string>> = { prompt: "user", handoff: "plan handed over", notification: "notification" };

export interface Transcript {
  text: string;
  /** Entries left out at the old end (stripping or the size budget). */
  omitted: number;
  files: { changed: string[]; read: string[] };
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return `[${text.length} characters omitted]`;
  const head = Math.ceil(max * 0.7);
  return `${text.slice(0, head)}\n[... ${text.length - max} characters omitted ...]\n${text.slice(text.length - (max - head))}`;
}

function render(entry: ConversationEntry, level: (typeof LEVELS)[number]): string {
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
      return level.outputs ? `${head}\n${cut(r.output, level.output)}` : `${head} [output omitted]`;
    })
    .join("\n");
}

/** Files the tools changed or read in these entries (from tool arguments and result metadata). */
export function filesTouched(entries: readonly ConversationEntry[]): { changed: string[]; read: string[] } {
  const changed = new Set<string>();
  const read = new Set<string>();
  for (const e of entries) {
    if (e.role === "assistant") {
      for (const p of e.content) {
        if (p.type !== "tool_call") continue;
        const path = p.arguments.path;
        if (typeof path !== "string") continue;
        if (p.name === "write" || p.name === "edit") changed.add(path);
        else if (p.name === "read") read.add(path);
      }
    }
  }
  for (const path of changed) read.delete(path);
  return { changed: [...changed], read: [...read] };
}

/**
 * The transcript at a strip level (0 = fullest), at most `maxTokens` long: older entries go first when it
 * does not fit, and the newest entry is cut to size rather than dropped.
 */
export function renderTranscript(entries: readonly ConversationEntry[], level: number, maxTokens: number): Transcript {
  const l = LEVELS[Math.min(level, MAX_STRIP_LEVEL)]!;
  const from = entries.length - Math.ceil(entries.length * l.keepShare);
  const budget = Math.max(0, maxTokens * CHARS_PER_TOKEN);
  const blocks: string[] = [];
  let size = 0;
  let i = entries.length - 1;
  for (; i >= from; i--) {
    const block = render(entries[i]!, l);
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
