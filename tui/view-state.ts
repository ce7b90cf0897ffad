// The conversation view's state: a fold of the daemon's sync records. The conversation itself is the
// engine's own fold (applyEvent); on top of it this keeps what only a screen needs: streaming parts not
// yet completed, tool runs in flight, retries, notices, the turn's status and the open questions. The
// screen is a list of blocks in arrival order; a block never changes once `done`, so the leading run of
// done blocks can be printed once (Ink's <Static>) and only the live tail re-renders.
import { applyEvent, type Interrogative, type QueuedInput, type TurnStopReason } from "../src/agent/events.ts";
import { describeRewound } from "../src/agent/checkpoints/describe.ts";
import type { Conversation, ToolResultEntry } from "../src/agent/conversation.ts";
import type { Usage } from "../src/providers/events.ts";
import { isEngineRecordType } from "../src/protocol/record-types.ts";
import type { SyncRecord, SyncRecordBody } from "../src/protocol/sync-record.ts";
import type { SyncSnapshotBody } from "../src/protocol/sync-shapes.ts";
import type { PlanItem } from "../src/protocol/plan.ts";
import { progressText } from "../src/util/progress-text.ts";
import type { HelpTable } from "./slash.ts";

export type Block =
  | { kind: "user"; id: string; text: string; done: true }
  | { kind: "text"; id: string; text: string; done: boolean }
  | { kind: "reasoning"; id: string; text: string; done: boolean }
  | {
      kind: "tool";
      /**
       * The call's tool_call part id, unique in the session (a record without one: `call_id@seq`). The
       * provider's `callId` may repeat (some servers send `call_1` every time), so it is never a key.
       */
      id: string;
      callId: string;
      name: string;
      /** Raw argument JSON while it streams; the parsed arguments once the part completes. */
      argsText: string;
      args: Record<string, unknown> | null;
      running: boolean;
      result: ToolResultEntry | null;
      durationMs: number | null;
      done: boolean;
      /** The running call's latest progress report ("3/10 (30%) copying"), if its tool sends any. */
      progress?: string;
    }
  | { kind: "retry"; id: string; attempt: number; max: number; delayMs: number; reason: string; done: true }
  /** The model's plan as it stands after one update (the plan tool): the whole checklist. */
  | { kind: "plan"; id: string; items: PlanItem[]; done: true }
  | { kind: "notice"; id: string; level: "info" | "warning" | "error"; message: string; done: true }
  | { kind: "turn_end"; id: string; stopReason: TurnStopReason; error: string | null; done: true }
  | {
      kind: "subagent";
      /** The subagent's id. */
      id: string;
      name: string;
      description: string;
      /** Its latest activity (a tool it started, its status line) while it runs. */
      activity: string | null;
      status: string | null;
      report: string | null;
      done: boolean;
    }
  /** Output of a slash command the user ran (added by the UI, not by a record). */
  | { kind: "command"; id: string; input: string; message: string; failed: boolean; help?: HelpTable; done: true };

export interface ViewState {
  conversation: Conversation;
  blocks: Block[];
  busy: boolean;
  turnId: string | null;
  model: string | null;
  facet: string | null;
  /** Where shell commands run and what runs without a question (the snapshot's `active`). */
  sandbox: string | null;
  autonomy: string | null;
  /** The daemon catalog's revision (the context meter reads the models' windows again when it changes). */
  catalogRevision: string | null;
  /** The seq the snapshot's facet and model are true at: records up to it do not change them. */
  activeSeq: number;
  /** The newest assistant message's usage: what the context holds now. */
  lastUsage: Usage | null;
  /** Tokens used since the session started (input + output of every message). */
  totalTokens: number;
  /** USD of the session's priced messages (the daemon's `cost_usd`); null until one is priced. */
  costUsd: number | null;
  queue: QueuedInput[];
  pending: Interrogative[];
  progress: string | null;
  sessionState: "running" | "stopping" | "stopped";
  lastSeq: number;
}

function info(seq: string, message: string): Block {
  return { kind: "notice", id: `notice:${seq}`, level: "info", message, done: true };
}

export function emptyViewState(): ViewState {
  return {
    conversation: { entries: [] },
    blocks: [],
    busy: false,
    turnId: null,
    model: null,
    facet: null,
    sandbox: null,
    autonomy: null,
    activeSeq: 0,
    catalogRevision: null,
    lastUsage: null,
    totalTokens: 0,
    costUsd: null,
    queue: [],
    pending: [],
    progress: null,
    sessionState: "running",
    lastSeq: 0,
  };
}

/** What the snapshot says about the present (the records replayed after it may refine it). */
export function applySnapshot(state: ViewState, snap: SyncSnapshotBody): void {
  state.busy = snap.turn.busy;
  state.turnId = snap.turn.turn_id;
  state.queue = [...snap.turn.queue];
  state.pending = [...snap.turn.pending_interrogatives];
  state.sessionState = snap.session_state;
  state.catalogRevision = snap.catalog_revision;
  // The facet and model from the start, before any turn (a daemon without the field sends none). The
  // records replayed after a snapshot include older ones: only a record newer than it changes them.
  const active = snap.active ?? null;
  if (active) {
    state.facet = active.facet;
    state.model = active.model;
    state.sandbox = active.sandbox ?? null;
    state.autonomy = active.autonomy ?? null;
    state.activeSeq = Number(snap.seq);
  }
}

function userText(content: { type: string; text?: string }[]): string {
  const text = content
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("\n");
  const images = content.filter((c) => c.type === "image").length;
  return images ? `${text}\n⎘ ${images === 1 ? "an image" : `${images} images`} attached` : text;
}

/** Folds records into the state; blocks that change are replaced (never mutated), so memoized views stay correct. */
export function applyRecords(state: ViewState, records: readonly SyncRecord[]): void {
  const at = new Map<string, number>();
  const indexOf = (id: string): number => {
    const cached = at.get(id);
    const matches = (b: Block | undefined) => b !== undefined && b.id === id;
    if (cached !== undefined && matches(state.blocks[cached])) return cached;
    for (let i = state.blocks.length - 1; i >= 0; i--) {
      if (matches(state.blocks[i])) {
        at.set(id, i);
        return i;
      }
    }
    return -1;
  };
  const update = (id: string, change: (b: Block) => Block | null) => {
    const i = indexOf(id);
    if (i < 0) return;
    const next = change(state.blocks[i]!);
    if (next) state.blocks[i] = next;
    else {
      state.blocks.splice(i, 1);
      at.clear();
    }
  };
  const push = (b: Block) => {
    state.blocks.push(b);
    at.set(b.id, state.blocks.length - 1);
  };
  /** The block of a tool_call_started/completed record: by part id, or (an older daemon's record) the newest open call with its call id. */
  const toolBlock = (partId: string | undefined, callId: string, seq: string, make: (id: string) => Block): number => {
    if (partId) {
      const i = indexOf(partId);
      if (i >= 0) return i;
    } else {
      for (let i = state.blocks.length - 1; i >= 0; i--) {
        const b = state.blocks[i]!;
        if (b.kind === "tool" && b.callId === callId && !b.done) return i;
      }
    }
    push(make(partId ?? `${callId}@${seq}`));
    return state.blocks.length - 1;
  };

  for (const record of records) {
    state.lastSeq = Number(record.seq);
    if (isEngineRecordType(record.type)) applyEvent(state.conversation, record as never);
    // TypeBox's Composite loses the union's discriminant; the body union keeps it.
    const r = record as unknown as SyncRecordBody & { seq: string };
    switch (r.type) {
      case "user_message":
        if (r.message.origin === "prompt") push({ kind: "user", id: r.message.id, text: userText(r.message.content), done: true });
        break;
      case "turn_started":
        state.busy = true;
        state.turnId = r.turn_id;
        if (state.lastSeq > state.activeSeq) {
          state.model = r.model;
          state.facet = r.facet;
        }
        state.progress = null;
        break;
      case "assistant_message_started":
        // Ignored: the engine's fold above opens the message; the screen draws its parts as they start.
        break;
      case "part_started":
        if (r.kind === "tool_call") {
          push({ kind: "tool", id: r.part_id, callId: r.call_id ?? r.part_id, name: r.name ?? "tool", argsText: "", args: null, running: false, result: null, durationMs: null, done: false });
        } else push({ kind: r.kind, id: r.part_id, text: "", done: false });
        break;
      case "part_delta": {
        const i = indexOf(r.part_id);
        const b = state.blocks[i];
        if (!b || b.done) break;
        if (b.kind === "text" || b.kind === "reasoning") state.blocks[i] = { ...b, text: b.text + r.delta };
        else if (b.kind === "tool") state.blocks[i] = { ...b, argsText: b.argsText + r.delta };
        break;
      }
      case "part_completed": {
        const part = r.part;
        if (part.type === "tool_call") update(part.id, (b) => (b.kind === "tool" ? { ...b, name: part.name, args: part.arguments } : b));
        else update(part.id, (b) => (b.kind === "text" || b.kind === "reasoning" ? { ...b, text: part.text, done: true } : b));
        break;
      }
      case "part_discarded": {
        const i = indexOf(r.part_id);
        const b = state.blocks[i];
        if (b && !b.done) {
          state.blocks.splice(i, 1);
          at.clear();
        }
        break;
      }
      case "assistant_message_completed":
        state.lastUsage = r.usage;
        state.totalTokens += r.usage.input_tokens + r.usage.output_tokens;
        if (r.cost_usd !== undefined) state.costUsd = (state.costUsd ?? 0) + r.cost_usd;
        break;
      case "tool_call_started": {
        const i = toolBlock(r.part_id, r.call_id, r.seq, (id) => ({ kind: "tool", id, callId: r.call_id, name: r.name, argsText: "", args: null, running: false, result: null, durationMs: null, done: false }));
        const b = state.blocks[i]!;
        if (b.kind === "tool") state.blocks[i] = { ...b, args: r.arguments, running: true };
        break;
      }
      case "tool_call_progress": {
        const i = r.part_id ? indexOf(r.part_id) : -1;
        const b = i >= 0 ? state.blocks[i]! : undefined;
        if (b?.kind === "tool" && b.running) state.blocks[i] = { ...b, progress: progressText(r) };
        break;
      }
      case "tool_call_completed": {
        const i = toolBlock(r.part_id, r.result.call_id, r.seq, (id) => ({ kind: "tool", id, callId: r.result.call_id, name: r.result.name, argsText: "", args: null, running: false, result: null, durationMs: null, done: false }));
        const b = state.blocks[i]!;
        if (b.kind === "tool") state.blocks[i] = { ...b, running: false, result: r.result, durationMs: r.duration_ms, done: true };
        break;
      }
      case "retry":
        push({ kind: "retry", id: `retry:${r.seq}`, attempt: r.attempt, max: r.max_retries, delayMs: r.delay_ms, reason: r.reason, done: true });
        break;
      case "turn_completed":
        state.busy = false;
        state.turnId = null;
        state.progress = null;
        // Whatever the turn left open is final now (an interrupted stream, a cancelled tool).
        for (let i = 0; i < state.blocks.length; i++) {
          const b = state.blocks[i]!;
          if (!b.done) state.blocks[i] = { ...b, done: true, ...(b.kind === "tool" ? { running: false } : {}) } as Block;
        }
        if (r.stop_reason !== "end_turn" && r.stop_reason !== "exit_tool")
          push({ kind: "turn_end", id: `end:${r.turn_id}`, stopReason: r.stop_reason as TurnStopReason, error: r.error ? `${r.error.code}: ${r.error.message}` : null, done: true });
        break;
      case "interrogative_opened":
        if (!state.pending.some((q) => q.id === r.interrogative.id)) state.pending = [...state.pending, r.interrogative];
        break;
      case "interrogative_closed":
        state.pending = state.pending.filter((q) => q.id !== r.id);
        break;
      case "queue_changed":
        state.queue = r.queue;
        break;
      case "progress":
        state.progress = r.text;
        break;
      case "plan_updated":
        push({ kind: "plan", id: `plan:${r.seq}`, items: r.items, done: true });
        break;
      case "notice":
        push({ kind: "notice", id: `notice:${r.seq}`, level: r.level, message: r.message, done: true });
        break;
      case "facet_changed":
        if (state.lastSeq > state.activeSeq) {
          state.facet = r.facet;
          state.model = r.model;
        }
        push(info(r.seq, `facet: ${r.facet} (was ${r.previous}) · model ${r.model}`));
        break;
      case "model_changed":
        if (state.lastSeq > state.activeSeq) state.model = r.model;
        push(info(r.seq, `model: ${r.model} (was ${r.previous})`));
        break;
      case "context_cleared":
        state.lastUsage = null;
        push(info(r.seq, `context cleared (it held about ${r.tokens_before} tokens); the conversation stays on screen`));
        break;
      case "compaction_started":
        state.progress = "compacting the context";
        break;
      case "context_compacted":
        state.progress = null;
        push(info(r.seq, `context compacted: about ${r.tokens_before} → ${r.tokens_after} tokens`));
        break;
      case "compaction_failed":
        state.progress = null;
        push({ kind: "notice", id: `notice:${r.seq}`, level: "warning", message: `compaction failed after ${r.attempts} attempt(s): ${r.error.message}`, done: true });
        break;
      case "plan_handoff":
        push(info(r.seq, `plan handed from ${r.from} to ${r.to}${r.new_context ? " in a fresh context" : ""}`));
        break;
      case "goal_changed":
        push(info(r.seq, `goal ${r.change}: ${r.goal.objective}${r.goal.progress && r.change === "updated" ? ` — ${r.goal.progress}` : ""}`));
        break;
      case "notification":
        // A tool server's change is news for the model; the person already got it as a notice.
        if (!r.notification.source.startsWith("mcp:")) push(info(r.seq, `${r.notification.source}: ${r.notification.text}`));
        break;
      case "subagent_started":
        push({ kind: "subagent", id: r.subagent_id, name: r.name, description: r.description, activity: null, status: null, report: null, done: false });
        break;
      case "subagent_progress":
        update(r.subagent_id, (b) => (b.kind === "subagent" && !b.done ? { ...b, activity: r.activity === "tool_call" ? `→ ${r.text}` : r.text } : b));
        break;
      case "subagent_stalled":
        update(r.subagent_id, (b) => (b.kind === "subagent" && !b.done ? { ...b, activity: `no activity for ${Math.round(r.idle_ms / 1000)} s; reconnecting its model stream` } : b));
        break;
      case "subagent_completed":
        update(r.subagent_id, (b) => (b.kind === "subagent" ? { ...b, status: r.status, report: r.error ? `${r.error.code}: ${r.error.message}` : r.report, activity: null, done: true } : b));
        break;
      case "session_state":
        state.sessionState = r.state;
        if (r.state !== "running") state.busy = false;
        break;
      case "daemon_catalog_changed":
        // The context meter's model windows come from the catalog: a new revision is read again.
        state.catalogRevision = r.catalog_revision;
        break;
      case "hook_ran":
        // A hook's error reaches the person as a notice; a block is shown where it happened.
        if (r.hook.outcome === "blocked") push(info(r.seq, `${r.hook.event} hook blocked${r.hook.tool ? ` ${r.hook.tool}` : ""}: ${r.hook.message ?? "no reason given"}`));
        break;
      case "checkpoint_saved":
      case "checkpoint_settled":
        // Restore points are bookkeeping for /undo and /rewind, not something to show.
        break;
      case "rewound":
        push(info(r.seq, describeRewound(r)));
        break;
      case "operation_result":
        // Ignored: SessionActions reads a command's result from its response, and a retry with the same
        // operation id answers with the stored one; the record serves clients that keep no request open.
        break;
      default: {
        // Every variant has its case (a new one does not compile here); a newer daemon's unknown record is skipped.
        const unknown: never = r;
        void unknown;
      }
    }
  }
}
