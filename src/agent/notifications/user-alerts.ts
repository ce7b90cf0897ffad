// Notifications for the person (docs/notifications.md), raised by the engine's host (the session daemon,
// or `agent exec`), so they go out with no view attached: a turn ended, a question waits for an answer, a
// goal finished. Channels: the `notify` program (Codex's: run with the event as one JSON argument), the
// terminal of an attached view (the TUI rings it: tui/terminal-alert.ts), and Notification hooks. Remote
// sessions show a waiting question as `attention` in the gateway's fleet catalog (docs/fleet.md).
import { basename } from "node:path";
import { DEFAULT_NOTIFY_CHANNELS, NOTIFY_EVENTS, type NotifyChannel, type NotifyEvent } from "../../config/schema/hooks.ts";
import type { Conversation } from "../conversation.ts";
import type { EngineEvent, Interrogative } from "../events.ts";
import type { Hooks } from "../hooks/hooks.ts";

/** The longest `text` a notification carries. */
const MAX_TEXT_CHARS = 200;

export interface UserAlert {
  type: NotifyEvent;
  session_id: string;
  /** The project directory and its name. */
  project: string;
  project_name: string;
  text: string;
  turn_id?: string;
  /** question_waiting: the question's id and kind (permission, goal_approval, elicitation, extension_approval). */
  question_id?: string;
  question_kind?: string;
}

export type NotifyChannels = Record<NotifyEvent, readonly NotifyChannel[]>;

/** The channels per event: `notify_events` as written, else the defaults. */
export function notifyChannels(block: Partial<Record<NotifyEvent, readonly NotifyChannel[] | null | undefined>> | null | undefined): NotifyChannels {
  return Object.fromEntries(NOTIFY_EVENTS.map((e) => [e, block?.[e] ?? DEFAULT_NOTIFY_CHANNELS[e]])) as NotifyChannels;
}

export interface UserAlertsDeps {
  sessionId: string;
  projectRoot: string;
  /** `notify`: program and arguments; null: none. */
  program: readonly string[] | null;
  channels: NotifyChannels;
  /** The child environment (secret words filtered out). */
  env: () => Record<string, string>;
  conversation: () => Conversation;
  hooks?: Hooks;
  /** Tells the person something went wrong (a program that cannot start). */
  warn: (message: string) => void;
}

export class UserAlerts {
  private warned = false;

  constructor(private readonly deps: UserAlertsDeps) {}

  /** Every event of the root session: raises the alerts it calls for. */
  observe(e: EngineEvent): void {
    const alert = this.alertFor(e);
    if (alert) void this.send(alert);
  }

  private alertFor(e: EngineEvent): UserAlert | null {
    const base = { session_id: this.deps.sessionId, project: this.deps.projectRoot, project_name: basename(this.deps.projectRoot) };
    switch (e.type) {
      case "turn_completed": {
        const reply = lastReply(this.deps.conversation());
        const text = e.error ? `turn ended (${e.stop_reason}): ${e.error.message}` : reply || `turn ended (${e.stop_reason})`;
        return { type: "turn_completed", ...base, text: short(text), turn_id: e.turn_id };
      }
      case "interrogative_opened":
        return { type: "question_waiting", ...base, text: short(questionText(e.interrogative)), question_id: e.interrogative.id, question_kind: e.interrogative.kind, ...(turnOf(e.interrogative) ? { turn_id: turnOf(e.interrogative)! } : {}) };
      case "goal_changed":
        if (e.change !== "completed" && e.change !== "limit_reached") return null;
        return { type: "goal_finished", ...base, text: short(`goal ${e.change === "completed" ? "completed" : "stopped at its continuation limit"}: ${e.goal.objective}${e.goal.outcome ? ` — ${e.goal.outcome}` : ""}`) };
      default:
        return null;
    }
  }

  private async send(alert: UserAlert): Promise<void> {
    const { program, channels, hooks } = this.deps;
    if (hooks?.has("Notification")) {
      await hooks.run("Notification", { message: alert.text, notification_type: alert.type }, { turnId: alert.turn_id ?? "", target: alert.type }).catch(() => {});
    }
    if (!program || !channels[alert.type].includes("program")) return;
    try {
      const proc = Bun.spawn([...program, JSON.stringify(alert)], { cwd: this.deps.projectRoot, env: this.deps.env(), stdin: "ignore", stdout: "ignore", stderr: "pipe" });
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      if (code !== 0) this.warnOnce(`the notify program ${program[0]} exited with code ${code}${stderr.trim() ? `: ${stderr.trim().slice(0, 300)}` : ""}`);
    } catch (error) {
      this.warnOnce(`the notify program ${program[0]} could not start: ${(error as Error).message}`);
    }
  }

  /** One warning per session: a broken program would otherwise speak after every turn. */
  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    this.deps.warn(`${message} (further failures are not reported in this session)`);
  }
}

/** The notification an event raises, if any (the TUI's terminal channel reads records with this too). */
export function notifyEventOf(e: { type: string; change?: string }): NotifyEvent | null {
  if (e.type === "turn_completed") return "turn_completed";
  if (e.type === "interrogative_opened") return "question_waiting";
  if (e.type === "goal_changed" && (e.change === "completed" || e.change === "limit_reached")) return "goal_finished";
  return null;
}

function short(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > MAX_TEXT_CHARS ? `${one.slice(0, MAX_TEXT_CHARS - 1)}…` : one;
}

function lastReply(conversation: Conversation): string {
  for (let i = conversation.entries.length - 1; i >= 0; i--) {
    const entry = conversation.entries[i]!;
    if (entry.role !== "assistant") continue;
    const text = entry.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(" ");
    if (text.trim()) return text;
  }
  return "";
}

function turnOf(q: Interrogative): string | undefined {
  return "turn_id" in q && typeof q.turn_id === "string" && q.turn_id ? q.turn_id : undefined;
}

function questionText(q: Interrogative): string {
  switch (q.kind) {
    case "permission":
      return `permission wanted for ${q.tool}: ${q.reason}`;
    default:
      return `a ${q.kind.replaceAll("_", " ")} waits for your answer`;
  }
}
