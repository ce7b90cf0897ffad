// The normalized stream event model: every dialect's decoder turns its wire events into these.

/** Why the model stopped, normalized across dialects; `raw_stop_reason` keeps the wire value. */
export type StopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "content_filter"
  | "context_window_exceeded"
  /** Proactively cut by `provider_stream_max_lifetime_secs`; continue with a continuation prompt. */
  | "max_lifetime"
  | "other";

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
}

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
}

/**
 * What must be sent back verbatim next turn so the provider can continue its reasoning:
 * Messages thinking / redacted_thinking blocks (with signature), Responses reasoning items
 * (with encrypted_content). Opaque to the engine.
 */
export type ReasoningReplay =
  | { dialect: "a_messages"; block: { type: "thinking"; thinking: string; signature: string } | { type: "redacted_thinking"; data: string } }
  | { dialect: "b_responses"; item: Record<string, unknown> & { type: "reasoning"; id: string } };

/**
 * What a tool call must carry back next turn: Gemini's Chat Completions endpoint attaches a thought signature
 * to function calls (`extra_content.google.thought_signature`) and refuses the next request without it.
 * Kept verbatim with the model that sent it; sent back only to that model.
 */
export type ToolCallReplay = { dialect: "b_chat_completions"; model: string; extra_content: Record<string, unknown> };

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
