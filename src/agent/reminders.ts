// Built-in system reminders: short notes the engine adds to the conversation (as user text wrapped in
// <system-reminder name="...">) before a model call, when something the model should know has happened.
// Each has a stable name; `daemon.system_reminders.disabled` removes it.
import { statSync } from "node:fs";
import type { SYSTEM_REMINDER_NAMES } from "../config/builtin-names.ts";
import type { ResolvedModel } from "../config/models.ts";
import type { Conversation } from "./conversation.ts";

export type SystemReminderName = (typeof SYSTEM_REMINDER_NAMES)[number];

/** Context fill levels (share of the window) at which `context_usage` speaks, once each. */
const CONTEXT_LEVELS = [0.5, 0.75, 0.9] as const;

export interface ReminderState {
  conversation: Conversation;
  /** The next model call is the last tool round of the turn (max_tool_turns). */
  lastToolRound: boolean;
  model: ResolvedModel;
}

export function wrapReminder(name: SystemReminderName, text: string): string {
  return `<system-reminder name="${name}">\n${text}\n</system-reminder>`;
}

export class Reminders {
  private readonly disabled: Set<string>;
  /** Files the model has read, with the modification time it saw. */
  private readonly seen = new Map<string, number>();
  private contextLevel = 0;
  /** Where the current context began (a compaction or /clear starts the levels over). */
  private contextFrom = 0;
  private imageNoticeFor = "";
  /** Reminders raised by something that happened (a facet switch, a goal change), for the next model call. */
  private raised: { name: SystemReminderName; text: string }[] = [];
  /** Reminders from elsewhere (extensions), asked at every collect; they return wrapped texts. */
  private readonly sources: ((state: ReminderState) => string[])[] = [];

  constructor(disabled: readonly string[] = []) {
    this.disabled = new Set(disabled);
  }

  enabled(name: SystemReminderName): boolean {
    return !this.disabled.has(name);
  }

  /** The read tool showed the model this file (or a tool of the agent changed it): remember its mtime. */
  noteFileSeen(path: string): void {
    const mtime = mtimeOf(path);
    if (mtime !== null) this.seen.set(path, mtime);
  }

  /**
   * Adds a reminder to the next model call (unless disabled); a newer one of the same name replaces it,
   * or with `add` joins it (news that accumulates, such as instruction files reached one after another).
   */
  raise(name: SystemReminderName, text: string, add = false): void {
    if (!this.enabled(name)) return;
    const earlier = add ? this.raised.find((r) => r.name === name) : undefined;
    if (earlier) {
      earlier.text += `\n\n${text}`;
      return;
    }
    this.raised = this.raised.filter((r) => r.name !== name);
    this.raised.push({ name, text });
  }

  /** Adds a source of reminders asked before every model call (after the built-in ones). */
  addSource(source: (state: ReminderState) => string[]): void {
    this.sources.push(source);
  }

  collect(state: ReminderState): string[] {
    const out: string[] = this.raised.splice(0).map((r) => wrapReminder(r.name, r.text));
    if (this.enabled("file_changed")) {
      const changed: string[] = [];
      for (const [path, mtime] of this.seen) {
        const now = mtimeOf(path);
        if (now === mtime) continue;
        changed.push(now === null ? `${path} (deleted)` : path);
        if (now === null) this.seen.delete(path);
        else this.seen.set(path, now);
      }
      if (changed.length > 0) {
        out.push(wrapReminder("file_changed", `These files changed outside your own edits since you last read them; read them again before editing:\n${changed.map((p) => `- ${p}`).join("\n")}`));
      }
    }
    if (this.enabled("context_usage")) {
      const from = state.conversation.context?.fresh ?? 0;
      if (from !== this.contextFrom) [this.contextFrom, this.contextLevel] = [from, 0];
      const used = lastContextTokens(state.conversation);
      const share = used / state.model.context_window;
      const level = CONTEXT_LEVELS.filter((l) => share >= l).length;
      // At the compaction threshold the context is compacted before this call: no point in warning.
      if (level > this.contextLevel && share < state.model.compaction_threshold) {
        out.push(wrapReminder("context_usage", `The conversation uses about ${Math.round(share * 100)}% of the context window (${used} of ${state.model.context_window} tokens). Be concise and avoid reading large files whole.`));
      }
      this.contextLevel = Math.max(this.contextLevel, level);
    }
    if (this.enabled("image_unsupported") && !state.model.supports_vision) {
      const last = lastUserPrompt(state.conversation);
      if (last && last.id !== this.imageNoticeFor && last.content.some((p) => p.type === "image")) {
        this.imageNoticeFor = last.id;
        out.push(wrapReminder("image_unsupported", `The user attached an image, but the current model (${state.model.key}) cannot see images. Say so if the image matters to the request.`));
      }
    }
    if (this.enabled("max_tool_turns") && state.lastToolRound) {
      out.push(wrapReminder("max_tool_turns", "This is the last tool round of this turn (daemon.max_tool_turns). Finish with what you have: after these tool calls the turn stops, so prefer answering the user now."));
    }
    for (const source of this.sources) out.push(...source(state));
    return out;
  }
}

function mtimeOf(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/** The newest usage report of the current context (reports from before a compaction or /clear do not count). */
function lastContextTokens(conversation: Conversation): number {
  for (let i = conversation.entries.length - 1; i >= (conversation.context?.fresh ?? 0); i--) {
    const e = conversation.entries[i]!;
    // input_tokens already includes cache reads and writes.
    if (e.role === "assistant" && e.usage) return e.usage.input_tokens + e.usage.output_tokens;
  }
  return 0;
}

function lastUserPrompt(conversation: Conversation) {
  for (let i = conversation.entries.length - 1; i >= 0; i--) {
    const e = conversation.entries[i]!;
    if (e.role === "user" && e.origin === "prompt") return e;
  }
  return undefined;
}
