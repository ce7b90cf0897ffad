// The request of a model call from the session's state: system prompt, tools, the conversation as the
// provider sees it, the model's limits and options. A turn's calls and a compaction's summary call build
// it here, so the summary request starts with exactly the bytes the previous call sent and the provider's
// cached prefix is reused.
import type { ConversationMessage, ProviderRequest, ToolChoice } from "../providers/request.ts";
import { structuredOutputOptions } from "../providers/structured-output.ts";
import type { Conversation } from "./conversation.ts";
import { toProviderMessages } from "./provider-messages.ts";
import type { AgentRuntime } from "./runtime.ts";

export interface ModelRequestOptions {
  /** Messages after the conversation's (a broken attempt's partial answer, a summary instruction). */
  after?: ConversationMessage[];
  toolChoice?: ToolChoice | null;
}

export function modelRequest(rt: AgentRuntime, conversation: Conversation, opts: ModelRequestOptions = {}): ProviderRequest {
  const tools = rt.toolSpecs();
  return {
    model: rt.model.provider_name,
    system: rt.systemPrompt(),
    messages: [...toProviderMessages(conversation, rt.model.supports_vision), ...(opts.after ?? [])],
    tools,
    max_output_tokens: rt.model.max_output_tokens_per_turn,
    stop_sequences: rt.model.stop_sequences,
    reasoning: rt.reasoning,
    request_options: { ...rt.model.request_option_defaults, ...(rt.outputSchema ? structuredOutputOptions(rt.provider.dialect, rt.outputSchema, rt.model.request_option_defaults) : null) },
    prompt_cache_key: rt.sessionId,
    model_config: { key: rt.model.key, api: rt.model.api, interleaved: rt.model.interleaved },
    ...(opts.toolChoice && tools.length > 0 ? { tool_choice: opts.toolChoice } : {}),
  };
}
