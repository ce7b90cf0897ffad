// The terminal channel of the user notifications (docs/notifications.md): while a view is attached, a
// finished turn, a waiting question or a finished goal rings the terminal as notify_events says (by default
// questions and goals, not every turn: the person watching sees those). The escape is chosen from what the
// terminal says it is: OSC 9 (iTerm2, WezTerm, ghostty, kitty), OSC 777 (rxvt-unicode, foot), else BEL;
// inside tmux or screen BEL, which they pass on (an OSC would need passthrough set up).
import { DEFAULT_NOTIFY_CHANNELS, NOTIFY_EVENTS, type NotifyEvent } from "../src/config/schema/hooks.ts";
import { notifyEventOf } from "../src/agent/notifications/user-alerts.ts";
import type { SyncRecord, SyncRecordBody } from "../src/protocol/sync-record.ts";

type Env = Record<string, string | undefined>;

const OSC9 = new Set(["iTerm.app", "WezTerm", "ghostty"]);

export type AlertForm = "osc9" | "osc777" | "bel";

export function alertForm(env: Env): AlertForm {
  if (env.TMUX || env.STY) return "bel";
  if (OSC9.has(env.TERM_PROGRAM ?? "") || env.TERM === "xterm-kitty" || env.TERM === "xterm-ghostty") return "osc9";
  if ((env.TERM ?? "").startsWith("rxvt") || (env.TERM ?? "").startsWith("foot")) return "osc777";
  return "bel";
}

/** The escape sequence that shows `text` (control characters removed: they would end the sequence). */
export function alertSequence(form: AlertForm, text: string): string {
  const clean = text.replace(/[\x00-\x1f\x7f]/g, " ").slice(0, 200);
  if (form === "osc9") return `\x1b]9;${clean}\x07`;
  if (form === "osc777") return `\x1b]777;notify;agent;${clean}\x07`;
  return "\x07";
}

/** Which events ring the terminal: `notify_events` entries listing `terminal`, else the defaults. */
export function terminalEvents(block: unknown): Set<NotifyEvent> {
  const conf = block && typeof block === "object" ? (block as Record<string, unknown>) : {};
  return new Set(NOTIFY_EVENTS.filter((e) => (Array.isArray(conf[e]) ? (conf[e] as unknown[]) : DEFAULT_NOTIFY_CHANNELS[e]).includes("terminal")));
}

function recordText(record: SyncRecord): string {
  const r = record as unknown as SyncRecordBody;
  if (r.type === "interrogative_opened") return r.interrogative.kind === "permission" ? `agent: permission wanted for ${r.interrogative.tool}` : "agent: a question waits for your answer";
  if (r.type === "goal_changed") return `agent: goal ${r.change === "completed" ? "completed" : "stopped"}: ${r.goal.objective}`;
  return "agent: the turn ended";
}

/** What to write for live records (never for a replay on attach): one alert for a batch at most. */
export function terminalAlert(records: readonly SyncRecord[], events: ReadonlySet<NotifyEvent>, form: AlertForm): string | null {
  const hit = records.find((r) => {
    const e = notifyEventOf(r as { type: string; change?: string });
    return e !== null && events.has(e);
  });
  return hit ? alertSequence(form, recordText(hit)) : null;
}
