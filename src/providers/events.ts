// The normalized stream event model: every dialect's decoder turns its wire events into these. The shapes
// that reach the conversation and the wire (usage, stop reason, replay data) are defined once, as schemas.
import type { ReasoningReplay, StopReason, ToolCallReplay, Usage } from "../protocol/conversation-schema.ts";

export type { ReasoningReplay, StopReason, ToolCallReplay, Usage };

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
}

export type StreamEvent =
  | { type: "response_start"; id: string | null; model: string | null }
  | { type: "text_delta"; index: number; text: string }
  | { type: "text_done"; index: number; text: string }
  | { type: "reasoning_delta"; index: number; text: string }
  | { type: "reasoning_done"; index: number; text: string; replay: ReasoningReplay | null }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_delta"; index: number; id: string; arguments_delta: string }
  | { type: "tool_call_done"; index: number; id: string; name: string; arguments: Record<string, unknown>; replay?: ToolCallReplay }
  /** Cumulative usage so far (each event replaces the previous figure). */
  | { type: "usage"; usage: Usage }
  | { type: "done"; stop_reason: StopReason; raw_stop_reason: string | null; usage: Usage }
  /** Emitted by the retry runner before it waits and tries again. */
  | { type: "retry"; attempt: number; max_retries: number; delay_ms: number; status: number | null; code: string; reason: string };

/** One content part of an assembled assistant message. */
export type AssistantPart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string; replay: ReasoningReplay | null }
  | { type: "tool_call"; id: string; name: string; arguments: Record<string, unknown>; replay?: ToolCallReplay };

/** The assistant message assembled from events; also the "partial" kept across a stall or truncation. */
export interface AssembledResponse {
  id: string | null;
  model: string | null;
  parts: AssistantPart[];
  usage: Usage;
  stop_reason: StopReason | null;
  raw_stop_reason: string | null;
}
