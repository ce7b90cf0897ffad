// One stderr line per event worth showing while `agent exec` runs in plain mode.
import type { EngineEvent } from "../agent/events.ts";
import { planProgress } from "../protocol/plan.ts";
import { progressText } from "../util/progress-text.ts";
import { retryText } from "../util/retry-text.ts";

const MAX_ARGS = 100;

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > MAX_ARGS ? `${text.slice(0, MAX_ARGS - 3)}...` : text;
}

export function describeEvent(e: EngineEvent): string | null {
  switch (e.type) {
    case "tool_call_started":
      return `→ ${e.name} ${brief(e.arguments)}`;
    case "tool_call_completed":
      return e.result.status === "completed" ? null : `  ${e.result.name} ${e.result.status}: ${e.result.output.split("\n")[0]!.slice(0, 200)}`;
    case "progress":
      return `… ${e.text}`;
    case "plan_updated": {
      const progress = planProgress(e.items);
      return progress ? `☰ plan ${progress.text}` : "☰ plan cleared";
    }
    case "tool_call_progress":
      return `  ${e.name} … ${progressText(e)}`;
    case "retry":
      return `${retryText(e.attempt, e.max_retries, e.delay_ms)}: ${e.code}${e.status ? ` (HTTP ${e.status})` : ""}`;
    case "notice":
      return `${e.level}: ${e.message}`;
    // A failed compaction ends the turn, whose error is printed anyway.
    case "compaction_started":
      return `compacting the context (about ${e.tokens_before} tokens) with ${e.model}…`;
    case "context_compacted":
      return `context compacted: about ${e.tokens_before} → ${e.tokens_after} tokens`;
    // Subagents: named on every line, since several may run at once.
    case "subagent_started":
      return `⇢ ${e.name}: ${e.description} (${e.model})`;
    case "subagent_progress":
      return e.activity === "tool_call" ? `  ${e.name} → ${e.text}` : `  ${e.name} … ${e.text}`;
    case "subagent_stalled":
      return `  ${e.name}: no activity for ${Math.round(e.idle_ms / 1000)} s; reconnecting its stream`;
    case "subagent_completed":
      return e.status === "completed" ? `⇠ ${e.name} reported (${e.tool_turns} tool round${e.tool_turns === 1 ? "" : "s"})` : `⇠ ${e.name} ${e.status}${e.error ? `: ${e.error.message}` : ""}`;
    default:
      return null;
  }
}

