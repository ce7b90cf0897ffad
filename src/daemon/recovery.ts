// After a crash the journal may end mid-turn. Before a new engine starts, the daemon closes what was
// left open, with records a client can render: parts discarded, the assistant message ended, unanswered
// tool calls cancelled, questions withdrawn, the turn ended as interrupted, and the lost queue named.
import type { EngineEvent } from "../agent/events.ts";
import { emptyUsage } from "../providers/events.ts";
import { newId } from "../util/ids.ts";
import type { RecordBody } from "./store/journal.ts";

export const RESTART_ERROR = { code: "daemon_restarted", message: "the session daemon stopped during this turn and was restarted" };

/** The records that close everything the events leave open (empty when the journal ended cleanly). */
export function closingRecords(events: readonly EngineEvent[], now: number): RecordBody[] {
  const openParts = new Map<string, string>();
  const openMessages = new Set<string>();
  // Keyed by the call's part id: the provider's call id may repeat within a session.
  const calls = new Map<string, { call_id: string; name: string; turn: string }>();
  const pending = new Set<string>();
  let turn: string | null = null;
  let queue: { id: string; text: string }[] = [];
  for (const e of events) {
    switch (e.type) {
      case "turn_started":
        turn = e.turn_id;
        break;
      case "turn_completed":
        turn = null;
        calls.clear();
        break;
      case "assistant_message_started":
        openMessages.add(e.message_id);
        break;
      case "assistant_message_completed":
        openMessages.delete(e.message_id);
        break;
      case "part_started":
        openParts.set(e.part_id, e.message_id);
        break;
      case "part_completed":
        openParts.delete(e.part.id);
        if (e.part.type === "tool_call" && turn) calls.set(e.part.id, { call_id: e.part.call_id, name: e.part.name, turn });
        break;
      case "tool_call_completed":
        if (e.part_id) calls.delete(e.part_id);
        else for (const [part, c] of calls) if (c.call_id === e.result.call_id) calls.delete(part);
        break;
      case "interrogative_opened":
        pending.add(e.interrogative.id);
        break;
      case "interrogative_closed":
        pending.delete(e.id);
        break;
      case "queue_changed":
        queue = e.queue;
        break;
      default:
        if ((e as { type: string }).type === "part_discarded") openParts.delete((e as unknown as { part_id: string }).part_id);
    }
  }
  const out: RecordBody[] = [];
  for (const [part_id, message_id] of openParts) out.push({ type: "part_discarded", message_id, part_id });
  for (const message_id of openMessages) out.push({ type: "assistant_message_completed", message_id, usage: emptyUsage(), stop_reason: null });
  for (const id of pending) out.push({ type: "interrogative_closed", id, outcome: "withdrawn" });
  if (turn) {
    const results_message_id = newId("msg", now);
    for (const [part_id, call] of calls) {
      out.push({
        type: "tool_call_completed",
        turn_id: call.turn,
        part_id,
        results_message_id,
        result: { call_id: call.call_id, name: call.name, status: "cancelled", output: "The session daemon restarted before this tool call finished; it may or may not have taken effect." },
        duration_ms: 0,
        completed_at: now,
      });
    }
    out.push({ type: "turn_completed", turn_id: turn, stop_reason: "interrupted", usage: emptyUsage(), error: RESTART_ERROR });
  }
  if (queue.length > 0) {
    out.push({ type: "queue_changed", queue: [] });
    const texts = queue.map((q) => JSON.stringify(q.text.length > 200 ? `${q.text.slice(0, 200)}…` : q.text)).join(", ");
    out.push({ type: "notice", level: "warning", message: `The daemon restarted; ${queue.length} queued prompt(s) were not run: ${texts}` });
  }
  return out;
}
