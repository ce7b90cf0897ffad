// MiniMax M2 and later. On its Messages endpoint (the catalog's): "In multi-turn function call
// conversations, the complete model response (i.e., the assistant message) must be appended to the
// conversation history", thinking blocks included. Over Chat Completions it goes back in
// reasoning_content where a host streams it there, else it stayed inside the content. Sources:
// platform.minimax.io/docs/api-reference/text-anthropic-api, platform.minimax.io/docs/guides/text-m2-function-call.
import type { FamilyRule, ModelFamily } from "./types.ts";

export const MINIMAX_MESSAGES: ModelFamily = {
  id: "minimax-messages",
  vendor: "MiniMax",
  title: "MiniMax M2 and later on MiniMax's Messages endpoint",
  sources: ["https://platform.minimax.io/docs/api-reference/text-anthropic-api"],
  // `thinking` is "Fully Supported" in the endpoint's parameter table.
  thinking: { form: "budget" },
  effort: null,
  replay: { field: "thinking_blocks", on: "all", mandatory: true, whenEmpty: null },
  // "messages: Partial support — Supports text and tool calls, no image/document input".
  toolResultImages: "none",
  cacheControl: "automatic",
  maxOutputField: "max_tokens",
  betas: [],
  refusedWithReasoning: [],
  promptVariant: "open",
};

export const MINIMAX_CHAT: ModelFamily = {
  ...MINIMAX_MESSAGES,
  id: "minimax-chat",
  title: "MiniMax M2 and later over Chat Completions (Together, Fireworks, Hugging Face, OpenRouter)",
  sources: ["https://platform.minimax.io/docs/guides/text-m2-function-call"],
  effort: "reasoning_effort",
  thinking: { form: "none" },
  // Hosts with a reasoning parser (vLLM's minimax_m2, SGLang) stream it apart in reasoning_content;
  // models.dev marks these models `interleaved.field = "reasoning_content"`.
  replay: { field: "reasoning_content", on: "tool_calls", mandatory: false, whenEmpty: null },
  toolResultImages: "user_message",
};

const minimax = (id: string) => /minimax-m\d/.test(id);

export const MINIMAX_RULES: readonly FamilyRule[] = [
  { family: MINIMAX_MESSAGES, dialects: ["a_messages"], match: minimax },
  { family: MINIMAX_CHAT, dialects: ["b_chat_completions"], match: minimax },
];
