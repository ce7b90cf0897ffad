// A plain streaming view of a session's records (until the terminal UI attaches instead): assistant text
// on stdout as it streams, tool calls, questions, retries and turn ends on stderr.
import type { SyncRecord } from "../protocol/sync-record.ts";
import type { Io } from "../util/cli-command.ts";
import { retryText } from "../util/retry-text.ts";
import { describeRewound } from "../agent/checkpoints/describe.ts";

export class SessionPrinter {
  private kinds = new Map<string, string>();
  private atLineStart = true;
  turnsCompleted = 0;
  lastStop: string | null = null;
  readonly questions: { id: string; text: string }[] = [];

  constructor(private readonly io: Io) {}

  /** Forget everything printed (a resync replays the session from its start). */
  reset(): void {
    this.kinds.clear();
    this.questions.length = 0;
  }

  print(records: readonly SyncRecord[]): void {
    for (const r of records as unknown as Record<string, any>[]) this.one(r);
  }

  private text(s: string): void {
    if (!s) return;
    this.io.out(s);
    this.atLineStart = s.endsWith("\n");
  }

  private note(s: string): void {
    if (!this.atLineStart) this.text("\n");
    this.io.err(`${s}\n`);
  }

  private one(r: Record<string, any>): void {
    switch (r.type) {
      case "user_message": {
        const text = (r.message.content as { type: string; text?: string }[]).filter((c) => c.type === "text").map((c) => c.text).join(" ");
        if (r.message.origin === "prompt") this.note(`> ${text}`);
        return;
      }
      case "part_started":
        this.kinds.set(r.part_id, r.kind);
        if (r.kind === "tool_call") this.note(`• ${r.name}`);
        return;
      case "part_delta":
        if (this.kinds.get(r.part_id) === "text") this.text(r.delta);
        return;
      case "part_discarded":
        if (this.kinds.get(r.part_id) === "text") this.note("(discarded; retrying)");
        return;
      case "tool_call_completed":
        this.note(`  ${r.result.name}: ${r.result.status} (${Math.round(r.duration_ms)} ms)`);
        return;
      case "retry":
        this.note(`${retryText(r.attempt, r.max_retries, r.delay_ms)}: ${r.reason}`);
        return;
      case "interrogative_opened": {
        const q = r.interrogative;
        const text = q.kind === "permission" ? `allow ${q.tool}? (${q.reason})` : q.kind === "extension_approval" ? `approve extension ${q.name} ${q.version} (${q.capabilities.join(", ")}) from ${q.path}?` : `approve goal: ${q.goal}?`;
        this.questions.push({ id: q.id, text });
        this.note(`? ${text} [y/N]`);
        return;
      }
      case "interrogative_closed": {
        const at = this.questions.findIndex((q) => q.id === r.id);
        if (at >= 0) this.questions.splice(at, 1);
        return;
      }
      case "notice":
        this.note(`${r.level}: ${r.message}`);
        return;
      case "compaction_started":
        this.note(`(compacting the context: about ${r.tokens_before} tokens)`);
        return;
      case "context_compacted":
        this.note(`(context compacted: about ${r.tokens_before} → ${r.tokens_after} tokens)`);
        return;
      case "context_cleared":
        this.note("(context cleared: the model starts fresh)");
        return;
      case "rewound":
        this.note(`(${describeRewound(r as Parameters<typeof describeRewound>[0])})`);
        return;
      case "turn_completed":
        if (!this.atLineStart) this.text("\n");
        this.turnsCompleted++;
        this.lastStop = r.stop_reason;
        if (r.stop_reason !== "end_turn") this.note(`(turn ended: ${r.stop_reason}${r.error ? ` — ${r.error.message}` : ""})`);
        return;
      case "session_state":
        if (r.state === "stopped") this.note("(session stopped)");
        return;
    }
  }
}
