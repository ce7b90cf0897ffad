// For every rule of every strict fake: a request the rule must refuse and the nearest valid request,
// which the vendor's whole table must accept. rules.test.ts sends both to the fake over HTTP.
const V = { "anthropic-version": "2023-06-01" };

export interface RuleCase {
  vendor: string;
  rule: string;
  /** What the case shows (test title). */
  what: string;
  bad: Record<string, unknown>;
  good: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The vendor's message, or a part of it. */
  message: string;
  status?: number;
}

const user = (content: unknown = "hi") => ({ role: "user", content });
export const msgs = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 8192, stream: true, messages: [user()], ...extra });
const toolUse = (id = "toolu_1") => ({ role: "assistant", content: [{ type: "tool_use", id, name: "read", input: { path: "a" } }] });
const toolResult = (id = "toolu_1", content: unknown = "ok") => ({ type: "tool_result", tool_use_id: id, content });
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, stream: true, messages: [user()], ...extra });
const call = (id = "call_1", extra: Record<string, unknown> = {}) => ({ id, type: "function", function: { name: "read", arguments: '{"path":"a"}' }, ...extra });
const withCall = (assistant: Record<string, unknown>, tool: Record<string, unknown> = { role: "tool", tool_call_id: "call_1", content: "ok" }) => [
  user(),
  { role: "assistant", content: null, tool_calls: [call()], ...assistant },
  tool,
];
export const responses = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  stream: true,
  store: false,
  input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
  ...extra,
});
const fc = { type: "function_call", call_id: "call_1", name: "read", arguments: '{"path":"a"}' };
const fco = { type: "function_call_output", call_id: "call_1", output: "ok" };

export const CASES: RuleCase[] = [
  // Anthropic Messages
  { vendor: "anthropic", rule: "anthropic.version-header", what: "no anthropic-version header", bad: msgs("claude-haiku-4-5"), good: msgs("claude-haiku-4-5"), headers: {}, message: "anthropic-version: header is required" },
  { vendor: "anthropic", rule: "anthropic.unknown-field", what: "a top-level field the API does not define", bad: msgs("claude-haiku-4-5", { reasoning_effort: "high" }), good: msgs("claude-haiku-4-5"), message: "reasoning_effort: Extra inputs are not permitted" },
  { vendor: "anthropic", rule: "messages.max-tokens-required", what: "no max_tokens", bad: { model: "claude-haiku-4-5", stream: true, messages: [user()] }, good: msgs("claude-haiku-4-5"), message: "max_tokens: Field required" },
  {
    vendor: "anthropic", rule: "messages.tool-result-follows-tool-use", what: "a tool_use without its tool_result in the next message",
    bad: msgs("claude-haiku-4-5", { messages: [user(), toolUse(), user("go on")] }),
    good: msgs("claude-haiku-4-5", { messages: [user(), toolUse(), user([toolResult()])] }),
    message: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
  },
  {
    vendor: "anthropic", rule: "messages.tool-result-answers-previous-tool-use", what: "a tool_result whose tool_use is not in the previous message",
    bad: msgs("claude-haiku-4-5", { messages: [user(), toolUse(), user([toolResult(), toolResult("toolu_9")])] }),
    good: msgs("claude-haiku-4-5", { messages: [user(), toolUse(), user([toolResult()])] }),
    message: "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9.",
  },
  {
    vendor: "minimax", rule: "messages.tool-results-first", what: "text before the tool_result in a user message",
    bad: msgs("MiniMax-M2.7", { messages: [user(), toolUse(), user([{ type: "text", text: "note" }, toolResult()])] }),
    good: msgs("MiniMax-M2.7", { messages: [user(), toolUse(), user([toolResult(), { type: "text", text: "note" }])] }),
    message: "`tool_result` blocks must come first",
  },
  {
    vendor: "anthropic", rule: "messages.tool-name", what: "a tool name with a dot (an MCP tool's own name)",
    bad: msgs("claude-haiku-4-5", { tools: [{ name: "mcp__fs__read.file", input_schema: { type: "object" } }] }),
    good: msgs("claude-haiku-4-5", { tools: [{ name: "mcp__fs__read_file", input_schema: { type: "object" } }] }),
    message: "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
  },
  {
    vendor: "zai-coding-plan", rule: "messages.tool-input-schema-object", what: "a tool whose input schema is not an object",
    bad: msgs("glm-5.1", { tools: [{ name: "read", input_schema: { type: "string" } }] }),
    good: msgs("glm-5.1", { tools: [{ name: "read", input_schema: { type: "object", properties: {} } }] }),
    message: "tools.0.custom.input_schema.type: Input should be 'object'",
  },
  {
    vendor: "anthropic", rule: "messages.block-types-by-role", what: "an image in an assistant message",
    bad: msgs("claude-haiku-4-5", { messages: [user(), { role: "assistant", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }] }, user("and?")] }),
    good: msgs("claude-haiku-4-5", { messages: [user([{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }, { type: "text", text: "what is it?" }])] }),
    message: "messages.1.content.0: `image` blocks are not accepted in assistant messages",
  },
  {
    vendor: "anthropic", rule: "messages.block-types-by-role", what: "a tool_use block inside a tool_result's content",
    bad: msgs("claude-haiku-4-5", { messages: [user(), toolUse(), user([toolResult("toolu_1", [{ type: "tool_use", id: "x", name: "y", input: {} }])])] }),
    good: msgs("claude-haiku-4-5", { messages: [user(), toolUse(), user([toolResult("toolu_1", [{ type: "text", text: "png:" }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }])])] }),
    message: "messages.2.content.0.content.0.type: Input should be 'text', 'image', 'search_result' or 'document'",
  },
  {
    vendor: "anthropic", rule: "messages.image-source", what: "an image of a type the API does not read",
    bad: msgs("claude-haiku-4-5", { messages: [user(), toolUse(), user([toolResult("toolu_1", [{ type: "image", source: { type: "base64", media_type: "image/bmp", data: PNG } }])])] }),
    good: msgs("claude-haiku-4-5", { messages: [user(), toolUse(), user([toolResult("toolu_1", [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }])])] }),
    message: "messages.2.content.0.content.0.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
  },
  {
    vendor: "anthropic", rule: "messages.non-empty-text", what: "an empty text block",
    bad: msgs("claude-haiku-4-5", { messages: [user([{ type: "text", text: "" }])] }), good: msgs("claude-haiku-4-5"),
    message: "messages: text content blocks must be non-empty",
  },
  {
    vendor: "anthropic", rule: "anthropic.thinking-enabled-refused", what: "budget thinking on Claude Sonnet 5",
    bad: msgs("claude-sonnet-5", { thinking: { type: "enabled", budget_tokens: 4096 } }),
    good: msgs("claude-sonnet-5", { thinking: { type: "adaptive", display: "summarized" }, output_config: { effort: "high" } }),
    message: `"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`,
  },
  {
    vendor: "azure-anthropic", rule: "anthropic.thinking-enabled-refused", what: "budget thinking on Claude Opus 4.7 (Foundry)",
    bad: msgs("claude-opus-4-7", { thinking: { type: "enabled", budget_tokens: 4096 } }),
    good: msgs("claude-opus-4-7", { thinking: { type: "adaptive" }, output_config: { effort: "xhigh" } }),
    message: `"thinking.type.enabled" is not supported for this model.`,
  },
  {
    vendor: "anthropic", rule: "anthropic.adaptive-unsupported", what: "adaptive thinking on Claude Haiku 4.5",
    bad: msgs("claude-haiku-4-5", { thinking: { type: "adaptive" } }), good: msgs("claude-haiku-4-5", { thinking: { type: "enabled", budget_tokens: 4096 } }),
    message: `"thinking.type.adaptive" is not supported for this model.`,
  },
  {
    vendor: "anthropic", rule: "anthropic.thinking-type", what: "an unknown thinking type",
    bad: msgs("claude-sonnet-4-6", { thinking: { type: "auto" } }), good: msgs("claude-sonnet-4-6", { thinking: { type: "adaptive" } }),
    message: "thinking: Input tag 'auto' found using 'type' does not match any of the expected tags",
  },
  {
    vendor: "anthropic", rule: "anthropic.budget-minimum", what: "a thinking budget under 1024",
    bad: msgs("claude-sonnet-4-5", { thinking: { type: "enabled", budget_tokens: 512 } }), good: msgs("claude-sonnet-4-5", { thinking: { type: "enabled", budget_tokens: 1024 } }),
    message: "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
  },
  {
    vendor: "anthropic", rule: "anthropic.budget-below-max-tokens", what: "a thinking budget not below max_tokens",
    bad: msgs("claude-sonnet-4-5", { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 4096 } }),
    good: msgs("claude-sonnet-4-5", { max_tokens: 4097, thinking: { type: "enabled", budget_tokens: 4096 } }),
    message: "`max_tokens` must be greater than `thinking.budget_tokens`.",
  },
  {
    vendor: "anthropic", rule: "anthropic.temperature-with-thinking", what: "temperature 0.2 with adaptive thinking",
    bad: msgs("claude-opus-4-6", { thinking: { type: "adaptive" }, temperature: 0.2 }), good: msgs("claude-opus-4-6", { temperature: 0.2 }),
    message: "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.",
  },
  {
    vendor: "anthropic", rule: "anthropic.sampling-deprecated", what: "temperature 0.2 to Claude Opus 4.7",
    bad: msgs("claude-opus-4-7", { temperature: 0.2 }), good: msgs("claude-opus-4-7", { temperature: 1 }),
    message: "`temperature` is deprecated for this model.",
  },
  {
    vendor: "anthropic", rule: "anthropic.sampling-deprecated", what: "top_k to Claude Sonnet 5",
    bad: msgs("claude-sonnet-5", { top_k: 40 }), good: msgs("claude-sonnet-5"),
    message: "`top_k` is deprecated for this model.",
  },
  {
    vendor: "minimax", rule: "minimax.text-and-tools-only", what: "an image in a tool result",
    bad: msgs("MiniMax-M2.7", { messages: [user(), toolUse(), user([toolResult("toolu_1", [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }])])] }),
    good: msgs("MiniMax-M2.7", { messages: [user(), toolUse(), user([toolResult("toolu_1", [{ type: "text", text: "an image: 1x1 PNG" }])])] }),
    message: "invalid params, messages.2: image input is not supported",
  },
  {
    vendor: "minimax", rule: "minimax.temperature-range", what: "temperature 0",
    bad: msgs("MiniMax-M2.7", { temperature: 0 }), good: msgs("MiniMax-M2.7", { temperature: 0.1 }),
    message: "invalid params, temperature must be in (0.0, 1.0]",
  },
  {
    vendor: "anthropic", rule: "anthropic.top-k-with-thinking", what: "top_k with thinking",
    bad: msgs("claude-sonnet-4-5", { thinking: { type: "enabled", budget_tokens: 2048 }, top_k: 5 }), good: msgs("claude-sonnet-4-5", { top_k: 5 }),
    message: "`top_k` is not supported when thinking is enabled",
  },
  {
    vendor: "anthropic", rule: "anthropic.top-p-with-thinking", what: "top_p 0.5 with thinking",
    bad: msgs("claude-sonnet-4-5", { thinking: { type: "enabled", budget_tokens: 2048 }, top_p: 0.5 }),
    good: msgs("claude-sonnet-4-5", { thinking: { type: "enabled", budget_tokens: 2048 }, top_p: 0.95 }),
    message: "`top_p` must be between 0.95 and 1",
  },
  {
    vendor: "anthropic", rule: "anthropic.forced-tool-with-thinking", what: "tool_choice any with thinking",
    bad: msgs("claude-sonnet-4-6", { thinking: { type: "adaptive" }, tools: [{ name: "read", input_schema: { type: "object" } }], tool_choice: { type: "any" } }),
    good: msgs("claude-sonnet-4-6", { thinking: { type: "adaptive" }, tools: [{ name: "read", input_schema: { type: "object" } }], tool_choice: { type: "auto" } }),
    message: "Thinking may not be enabled when tool_choice forces tool use.",
  },
  {
    vendor: "anthropic", rule: "anthropic.effort-values", what: "an effort level the API does not define",
    bad: msgs("claude-opus-4-6", { output_config: { effort: "minimal" } }), good: msgs("claude-opus-4-6", { output_config: { effort: "low" } }),
    message: "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'",
  },
  {
    vendor: "anthropic", rule: "anthropic.effort-unsupported", what: "effort on Claude Haiku 4.5",
    bad: msgs("claude-haiku-4-5", { thinking: { type: "enabled", budget_tokens: 2048 }, output_config: { effort: "high" } }),
    good: msgs("claude-haiku-4-5", { thinking: { type: "enabled", budget_tokens: 2048 } }),
    message: "This model does not support the effort parameter.",
  },
  {
    vendor: "anthropic", rule: "anthropic.effort-max-unsupported", what: "effort max on Claude Opus 4.5",
    bad: msgs("claude-opus-4-5", { output_config: { effort: "max" } }), good: msgs("claude-opus-4-5", { output_config: { effort: "high" } }),
    message: "effort 'max' is not supported by this model.",
  },
  {
    vendor: "anthropic", rule: "anthropic.effort-xhigh-unsupported", what: "effort xhigh on Claude Opus 4.6",
    bad: msgs("claude-opus-4-6", { output_config: { effort: "xhigh" } }), good: msgs("claude-opus-4-6", { output_config: { effort: "max" } }),
    message: "effort 'xhigh' is not supported by this model.",
  },
  {
    vendor: "anthropic", rule: "anthropic.thinking-kept-in-tool-loop", what: "budget thinking dropped from the assistant turn a tool_result answers",
    bad: msgs("claude-sonnet-4-5", { thinking: { type: "enabled", budget_tokens: 2048 }, messages: [user(), toolUse(), user([toolResult()])] }),
    good: msgs("claude-sonnet-4-5", {
      thinking: { type: "enabled", budget_tokens: 2048 },
      messages: [user(), { role: "assistant", content: [{ type: "thinking", thinking: "plan", signature: "sig" }, toolUse().content[0]] }, user([toolResult()])],
    }),
    message: "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block",
  },
  {
    vendor: "anthropic", rule: "anthropic.cache-breakpoints", what: "five cache_control breakpoints",
    bad: msgs("claude-sonnet-4-6", {
      system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }],
      tools: [{ name: "read", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
      messages: [user([{ type: "text", text: "a", cache_control: { type: "ephemeral" } }]), { role: "assistant", content: "b" }, user([{ type: "text", text: "c", cache_control: { type: "ephemeral" } }]), { role: "assistant", content: "d" }, user([{ type: "text", text: "e", cache_control: { type: "ephemeral" } }])],
    }),
    good: msgs("claude-sonnet-4-6", {
      system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }],
      tools: [{ name: "read", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
      messages: [user([{ type: "text", text: "a" }]), { role: "assistant", content: "b" }, user([{ type: "text", text: "c", cache_control: { type: "ephemeral" } }]), { role: "assistant", content: "d" }, user([{ type: "text", text: "e", cache_control: { type: "ephemeral" } }])],
    }),
    message: "A maximum of 4 blocks with cache_control may be provided. Found 5.",
  },

  // OpenAI (official OpenAPI document)
  { vendor: "openai-chat", rule: "openai.schema.chat", what: "an unknown top-level field", bad: chat("gpt-5.5", { reasoning_content: "x" }), good: chat("gpt-5.5"), message: "Unrecognized request argument supplied: reasoning_content" },
  { vendor: "openai-chat", rule: "openai.schema.chat", what: "a message content of the wrong type", bad: chat("gpt-5.5", { messages: [user(5)] }), good: chat("gpt-5.5", { messages: [user("5")] }), message: "Invalid type for 'messages[0].content'" },
  { vendor: "azure", rule: "openai.schema.chat", what: "a reasoning_effort value outside the enum", bad: chat("gpt-5.5", { reasoning_effort: "extreme" }), good: chat("gpt-5.5", { reasoning_effort: "xhigh" }), message: "Invalid value: 'extreme'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'." },
  {
    vendor: "github-models", rule: "openai.schema.chat", what: "an image in a tool message", bad: chat("openai/gpt-4.1", { messages: withCall({}, { role: "tool", tool_call_id: "call_1", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] }) }),
    good: chat("openai/gpt-4.1", { messages: [...withCall({}), user([{ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }])] }),
    message: "messages[2].content",
  },
  { vendor: "openai", rule: "openai.schema.responses", what: "an unknown top-level field", bad: responses("gpt-5.5", { thinking: { type: "enabled" } }), good: responses("gpt-5.5", { reasoning: { effort: "high", summary: "auto" } }), message: "Unknown parameter: 'thinking'." },
  { vendor: "openai", rule: "openai.schema.responses", what: "max_output_tokens as a string", bad: responses("gpt-5.5", { max_output_tokens: "100" }), good: responses("gpt-5.5", { max_output_tokens: 100 }), message: "Invalid type for 'max_output_tokens': expected an integer, but got a string instead." },
  { vendor: "chatgpt", rule: "openai.schema.responses", what: "max_output_tokens under 16", bad: responses("gpt-5.3-codex", { max_output_tokens: 8 }), good: responses("gpt-5.3-codex", { max_output_tokens: 16 }), message: "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 8 instead." },
  { vendor: "openai", rule: "openai.schema.responses", what: "a reasoning effort outside the enum", bad: responses("gpt-5.5", { reasoning: { effort: "extreme" } }), good: responses("gpt-5.5", { reasoning: { effort: "max" } }), message: "Invalid value: 'extreme'." },
  { vendor: "openai", rule: "openai.responses.output-has-call", what: "a function_call_output without its call", bad: responses("gpt-5.5", { input: [fco] }), good: responses("gpt-5.5", { input: [fc, fco] }), message: "No tool call found for function call output with call_id call_1." },
  { vendor: "openai", rule: "openai.responses.call-has-output", what: "a function_call without its output", bad: responses("gpt-5.5", { input: [fc] }), good: responses("gpt-5.5", { input: [fc, fco] }), message: "No tool output found for function call call_1." },
  {
    vendor: "openai", rule: "openai.responses.unstored-reasoning-needs-encrypted-content", what: "an unstored reasoning item sent back without its encrypted content",
    bad: responses("gpt-5.5", { input: [{ type: "reasoning", id: "rs_1", summary: [] }, fc, fco] }),
    good: responses("gpt-5.5", { input: [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" }, fc, fco] }),
    message: "Item with id 'rs_1' not found. Items are not persisted when `store` is set to false.",
  },
  {
    vendor: "openai", rule: "openai.responses.reasoning-followed-by-its-item", what: "a reasoning item sent back without the call that followed it",
    bad: responses("gpt-5.5", { input: [{ type: "message", role: "user", content: "hi" }, { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" }, { type: "message", role: "user", content: "next" }] }),
    good: responses("gpt-5.5", { input: [{ type: "message", role: "user", content: "hi" }, { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" }, fc, fco] }),
    message: "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
  },
  { vendor: "openai", rule: "openai.sampling-with-reasoning", what: "temperature with reasoning effort high", bad: responses("gpt-5.5", { reasoning: { effort: "high" }, temperature: 0.2 }), good: responses("gpt-5.5", { reasoning: { effort: "none" }, temperature: 0.2 }), message: "Unsupported parameter: 'temperature' is not supported with this model." },
  {
    vendor: "openai-chat", rule: "openai.tool-name", what: "a function name with a colon",
    bad: chat("gpt-5.5", { tools: [{ type: "function", function: { name: "fs:read", parameters: { type: "object" } } }] }),
    good: chat("gpt-5.5", { tools: [{ type: "function", function: { name: "fs_read", parameters: { type: "object" } } }] }),
    message: "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
  },
  {
    vendor: "openai", rule: "openai.tool-name", what: "a function name longer than 64",
    bad: responses("gpt-5.5", { tools: [{ type: "function", name: "x".repeat(65), parameters: { type: "object" }, strict: false }] }),
    good: responses("gpt-5.5", { tools: [{ type: "function", name: "x".repeat(64), parameters: { type: "object" }, strict: false }] }),
    message: "Invalid 'tools[0].name': string too long. Expected a string with maximum length 64, but got a string with length 65 instead.",
  },
  {
    vendor: "google", rule: "gemini.function-name", what: "a function name starting with a digit",
    bad: chat("gemini-3.5-flash", { tools: [{ type: "function", function: { name: "1read", parameters: { type: "object" } } }] }),
    good: chat("gemini-3.5-flash", { tools: [{ type: "function", function: { name: "mcp__fs__read.file", parameters: { type: "object" } } }] }),
    message: "Invalid function name. Must start with a letter or an underscore.",
  },
  {
    vendor: "azure", rule: "openai.tool-parameters-object", what: "function parameters without type object",
    bad: chat("gpt-5.5", { tools: [{ type: "function", function: { name: "read", parameters: { properties: {} } } }] }),
    good: chat("gpt-5.5", { tools: [{ type: "function", function: { name: "read", parameters: { type: "object", properties: {} } } }] }),
    message: `Invalid schema for function 'read': schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`,
  },
  { vendor: "openai-chat", rule: "openai.max-tokens-on-reasoning-model", what: "max_tokens to gpt-5.5", bad: chat("gpt-5.5", { max_tokens: 100 }), good: chat("gpt-5.5", { max_completion_tokens: 100 }), message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead." },

  // Chat Completions tool pairing (every compatible vendor)
  { vendor: "openrouter", rule: "chat.tool-calls-answered", what: "a tool call without its tool message", bad: chat("anthropic/claude-sonnet-5", { messages: [user(), { role: "assistant", content: null, tool_calls: [call()] }, user("go on")] }), good: chat("anthropic/claude-sonnet-5", { messages: withCall({}) }), message: "The following tool_call_ids did not have response messages: call_1" },
  { vendor: "together", rule: "chat.tool-message-answers-call", what: "a tool message answering no call", bad: chat("moonshotai/Kimi-K2.6", { messages: [user(), { role: "tool", tool_call_id: "call_1", content: "ok" }] }), good: chat("moonshotai/Kimi-K2.6", { messages: withCall({}) }), message: "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'." },
  { vendor: "moonshot", rule: "chat.tool-content-text-only", what: "an image part in a tool message", bad: chat("kimi-k2.6", { thinking: { type: "disabled" }, messages: withCall({}, { role: "tool", tool_call_id: "call_1", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA" } }] }) }), good: chat("kimi-k2.6", { thinking: { type: "disabled" }, messages: withCall({}) }), message: "Invalid value: 'image_url'. Supported values are: 'text'." },

  // DeepSeek, Moonshot, Z.ai, DashScope, Gemini, Mistral, Groq, xAI, vLLM
  { vendor: "deepseek", rule: "deepseek.reasoning-content-replayed", what: "a tool-calling turn sent back without reasoning_content", bad: chat("deepseek-v4-pro", { messages: withCall({}) }), good: chat("deepseek-v4-pro", { messages: withCall({ reasoning_content: "" }) }), message: "The `reasoning_content` in the thinking mode must be passed back to the API." },
  { vendor: "deepseek", rule: "deepseek.text-only", what: "an image part", bad: chat("deepseek-v4-flash", { messages: [user([{ type: "image_url", image_url: { url: "data:image/png;base64,AA" } }])] }), good: chat("deepseek-v4-flash", { messages: [user([{ type: "text", text: "hi" }])] }), message: "unknown variant `image_url`, expected `text`", status: 422 },
  { vendor: "moonshot", rule: "moonshot.reasoning-content-replayed", what: "Kimi K2.6 tool-calling turn without reasoning_content", bad: chat("kimi-k2.6", { messages: withCall({}) }), good: chat("kimi-k2.6", { messages: withCall({ reasoning_content: "plan" }) }), message: "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1" },
  { vendor: "zai", rule: "zai.thinking-type", what: "an unknown thinking type", bad: chat("glm-5.1", { thinking: { type: "adaptive" } }), good: chat("glm-5.1", { thinking: { type: "enabled" } }), message: "thinking.type must be 'enabled' or 'disabled'" },
  { vendor: "dashscope", rule: "dashscope.thinking-needs-stream", what: "thinking without streaming", bad: chat("qwen3-coder-plus", { stream: false, enable_thinking: true }), good: chat("qwen3-coder-plus", { enable_thinking: true }), message: "parameter.enable_thinking must be set to false for non-streaming calls" },
  {
    vendor: "dashscope", rule: "dashscope.forced-tool-with-thinking", what: "tool_choice required in thinking mode",
    bad: chat("qwen3-max", { enable_thinking: true, tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }], tool_choice: "required" }),
    good: chat("qwen3-max", { enable_thinking: true, tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }], tool_choice: "auto" }),
    message: "The tool_choice parameter does not support being set to required or object in thinking mode",
  },
  {
    vendor: "moonshot", rule: "moonshot.forced-tool-with-thinking", what: "tool_choice required to Kimi K2.6 with thinking on",
    bad: chat("kimi-k2.6", { tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }], tool_choice: "required" }),
    good: chat("kimi-k2.6", { thinking: { type: "disabled" }, tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }], tool_choice: "required" }),
    message: "tool_choice 'required' or a named function is not supported when thinking is enabled",
  },
  { vendor: "google", rule: "gemini.thought-signature-replayed", what: "a Gemini 3 function call sent back without its thought signature", bad: chat("gemini-3.1-pro-preview", { messages: withCall({}) }), good: chat("gemini-3.1-pro-preview", { messages: withCall({ tool_calls: [call("call_1", { extra_content: { google: { thought_signature: "sig" } } })] }) }), message: "Function call is missing a thought_signature in functionCall parts." },
  { vendor: "mistral", rule: "mistral.unknown-field", what: "stream_options, which Mistral does not define", bad: chat("mistral-large-latest", { stream_options: { include_usage: true } }), good: chat("mistral-large-latest"), message: "Extra inputs are not permitted", status: 422 },
  {
    vendor: "mistral", rule: "mistral.no-user-right-after-tool", what: "a user message right after the tool messages",
    bad: chat("mistral-medium-latest", { messages: [...withCall({ tool_calls: [call("a1B2c3D4e")] }, { role: "tool", tool_call_id: "a1B2c3D4e", content: "ok" }), user("and the image")] }),
    good: chat("mistral-medium-latest", { messages: [...withCall({ tool_calls: [call("a1B2c3D4e")] }, { role: "tool", tool_call_id: "a1B2c3D4e", content: "ok" }), { role: "assistant", content: "noted" }, user("and the image")] }),
    message: "Unexpected role 'user' after role 'tool'",
  },
  {
    vendor: "mistral", rule: "mistral.tool-call-id-format", what: "a tool call id Mistral did not give (call_1)",
    bad: chat("mistral-large-latest", { messages: withCall({}) }),
    good: chat("mistral-large-latest", { messages: withCall({ tool_calls: [call("a1B2c3D4e")] }, { role: "tool", tool_call_id: "a1B2c3D4e", content: "ok" }) }),
    message: "Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9.",
  },
  { vendor: "groq", rule: "groq.unsupported-field", what: "logprobs", bad: chat("openai/gpt-oss-120b", { logprobs: true }), good: chat("openai/gpt-oss-120b", { reasoning_effort: "high" }), message: "property 'logprobs' is unsupported" },
  {
    vendor: "mistral", rule: "mistral.no-user-right-after-tool", what: "a user message right after the tool messages",
    bad: chat("mistral-medium-latest", { messages: [...withCall({ tool_calls: [call("a1B2c3D4e")] }, { role: "tool", tool_call_id: "a1B2c3D4e", content: "ok" }), user("and the image")] }),
    good: chat("mistral-medium-latest", { messages: [...withCall({ tool_calls: [call("a1B2c3D4e")] }, { role: "tool", tool_call_id: "a1B2c3D4e", content: "ok" }), { role: "assistant", content: "noted" }, user("and the image")] }),
    message: "Unexpected role 'user' after role 'tool'",
  },
  {
    vendor: "mistral", rule: "mistral.tool-call-id-format", what: "a tool call id Mistral did not give (call_1)",
    bad: chat("mistral-large-latest", { messages: withCall({}) }),
    good: chat("mistral-large-latest", { messages: withCall({ tool_calls: [call("a1B2c3D4e")] }, { role: "tool", tool_call_id: "a1B2c3D4e", content: "ok" }) }),
    message: "Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9.",
  },
  { vendor: "groq", rule: "groq.unsupported-field", what: "a message name", bad: chat("openai/gpt-oss-120b", { messages: [{ role: "user", content: "hi", name: "me" }] }), good: chat("openai/gpt-oss-120b"), message: "property 'name' is unsupported" },
  { vendor: "cerebras", rule: "cerebras.unsupported-field", what: "presence_penalty", bad: chat("gpt-oss-120b", { presence_penalty: 0.5 }), good: chat("gpt-oss-120b", { temperature: 0.5 }), message: "Unsupported parameter: 'presence_penalty' is not supported by this API." },
  { vendor: "cerebras", rule: "cerebras.unsupported-field", what: "tool_choice required", bad: chat("gpt-oss-120b", { tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }], tool_choice: "required" }), good: chat("gpt-oss-120b", { tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }], tool_choice: "auto" }), message: "tool_choice must be 'auto' or 'none'." },
  { vendor: "xai", rule: "xai.reasoning-effort-unsupported", what: "reasoning_effort to grok-4.20 non-reasoning", bad: chat("grok-4.20-0309-non-reasoning", { reasoning_effort: "low" }), good: chat("grok-4.20-0309-non-reasoning"), message: "Model grok-4.20-0309-non-reasoning does not support parameter reasoningEffort." },
  { vendor: "xai", rule: "xai.reasoning-effort-values", what: "reasoning_effort xhigh to grok-4.3", bad: chat("grok-4.3", { reasoning_effort: "xhigh" }), good: chat("grok-4.3", { reasoning_effort: "high" }), message: "Invalid reasoning effort 'xhigh'" },
  { vendor: "xai", rule: "xai.sampling-on-reasoning-model", what: "stop sequences to grok-4.3", bad: chat("grok-4.3", { stop: ["END"] }), good: chat("grok-4.20-0309-non-reasoning", { stop: ["END"] }), message: "Model grok-4.3 does not support parameter stop." },
  { vendor: "vllm", rule: "vllm.stream-options-need-stream", what: "stream_options without streaming", bad: chat("qwen3", { stream: false, stream_options: { include_usage: true } }), good: chat("qwen3", { stream_options: { include_usage: true } }), message: "Stream options can only be defined when `stream=True`." },
];

export { V as ANTHROPIC_HEADERS };
