// Chat Completions rules: the tool-call pairing every OpenAI-compatible server enforces, OpenAI's own
// model rules beyond its schema, and each compatible vendor's documented differences.
import { type Rule, family } from "./types.ts";

const OPENAI_TOOLS = "https://platform.openai.com/docs/guides/function-calling";

const messagesOf = (body: any): any[] => (Array.isArray(body?.messages) ? body.messages : []);

/** Every assistant `tool_calls` entry answered by the tool messages right after it, and no stray tool message. */
export const CHAT_TOOL_PAIRING: readonly Rule[] = [
  {
    id: "chat.tool-calls-answered",
    source: OPENAI_TOOLS,
    check: ({ body }) => {
      const messages = messagesOf(body);
      for (let i = 0; i < messages.length; i++) {
        const calls: any[] = messages[i].role === "assistant" && Array.isArray(messages[i].tool_calls) ? messages[i].tool_calls : [];
        if (calls.length === 0) continue;
        const answered = new Set<string>();
        for (let j = i + 1; j < messages.length && messages[j].role === "tool"; j++) answered.add(messages[j].tool_call_id);
        const missing = calls.map((c) => c.id).filter((id) => !answered.has(id));
        if (missing.length > 0)
          return {
            message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`,
            param: `messages.[${i}].role`,
          };
      }
      return null;
    },
  },
  {
    id: "chat.tool-message-answers-call",
    source: OPENAI_TOOLS,
    check: ({ body }) => {
      const messages = messagesOf(body);
      for (let i = 0; i < messages.length; i++) {
        if (messages[i].role !== "tool") continue;
        let j = i - 1;
        while (j >= 0 && messages[j].role === "tool") j--;
        const calls: any[] = j >= 0 && messages[j].role === "assistant" && Array.isArray(messages[j].tool_calls) ? messages[j].tool_calls : [];
        if (!calls.some((c) => c.id === messages[i].tool_call_id))
          return { message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", param: `messages.[${i}].role` };
      }
      return null;
    },
  },
  {
    id: "chat.tool-content-text-only",
    source: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages",
    check: ({ body }) => {
      const messages = messagesOf(body);
      for (let i = 0; i < messages.length; i++)
        if (messages[i].role === "tool" && Array.isArray(messages[i].content)) {
          const k = messages[i].content.findIndex((p: any) => p?.type !== "text");
          if (k >= 0)
            return { message: `Invalid value: '${messages[i].content[k]?.type}'. Supported values are: 'text'.`, param: `messages[${i}].content[${k}].type`, code: "invalid_value" };
        }
      return null;
    },
  },
];

/** A function name OpenAI accepts: letters, digits, `_`, `-`, at most 64 (the document says it in prose only). */
function openAiToolName(where: (body: any) => { path: string; name: unknown }[]): Rule {
  return {
    id: "openai.tool-name",
    source: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools",
    check: ({ body }) => {
      for (const { path, name } of where(body)) {
        if (typeof name !== "string") continue;
        if (!/^[a-zA-Z0-9_-]+$/.test(name))
          return { message: `Invalid '${path}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, param: path, code: "invalid_value" };
        if (name.length > 64)
          return { message: `Invalid '${path}': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`, param: path, code: "string_above_max_length" };
      }
      return null;
    },
  };
}
const toolsOf = (body: any): any[] => (Array.isArray(body?.tools) ? body.tools : []);

/** A function's parameters must be an object schema (OpenAI's function calling guide). */
function openAiToolParameters(where: (body: any) => { name: unknown; parameters: any }[]): Rule {
  return {
    id: "openai.tool-parameters-object",
    source: OPENAI_TOOLS,
    check: ({ body }) => {
      const bad = where(body).find((t) => t.parameters != null && t.parameters.type !== "object");
      return bad
        ? { message: `Invalid schema for function '${String(bad.name)}': schema must be a JSON Schema of 'type: "object"', got 'type: "${bad.parameters.type ?? "None"}"'.`, param: "tools", code: "invalid_function_parameters" }
        : null;
    },
  };
}

/** OpenAI reasoning models (gpt-5 family, o-series). */
const OPENAI_REASONING = family("OpenAI reasoning models (gpt-5*, o*)", (m) => /^(?:openai\/)?(gpt-5(?!-chat)|o\d)/.test(m));
const REASONING_GUIDE = "https://platform.openai.com/docs/guides/reasoning";

/** OpenAI rules the schema cannot say: per-model parameters (Chat Completions). */
export const OPENAI_CHAT_RULES: readonly Rule[] = [
  openAiToolName((body) => toolsOf(body).map((t, i) => ({ path: `tools[${i}].function.name`, name: t?.function?.name }))),
  openAiToolParameters((body) => toolsOf(body).map((t) => ({ name: t?.function?.name, parameters: t?.function?.parameters }))),
  {
    id: "openai.max-tokens-on-reasoning-model",
    source: REASONING_GUIDE,
    models: OPENAI_REASONING,
    check: ({ body }) =>
      body?.max_tokens !== undefined
        ? { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", param: "max_tokens", code: "unsupported_parameter" }
        : null,
  },
  samplingWithReasoning((body) => body?.reasoning_effort),
];

function samplingWithReasoning(effortOf: (body: any) => unknown): Rule {
  return {
    id: "openai.sampling-with-reasoning",
    source: "https://platform.openai.com/docs/guides/latest-model#gpt-5-parameter-compatibility",
    models: OPENAI_REASONING,
    check: ({ body }) => {
      const effort = effortOf(body);
      if (effort === undefined || effort === "none") return null;
      const field = ["temperature", "top_p", "logprobs"].find((f) => body?.[f] !== undefined);
      return field ? { message: `Unsupported parameter: '${field}' is not supported with this model.`, param: field, code: "unsupported_parameter" } : null;
    },
  };
}

const RESPONSES_STATE = "https://platform.openai.com/docs/guides/conversation-state";

/** OpenAI Responses rules beyond the schema: call/output pairing and items that cannot be looked up. */
export const OPENAI_RESPONSES_RULES: readonly Rule[] = [
  openAiToolName((body) => toolsOf(body).filter((t) => t?.type === "function").map((t, i) => ({ path: `tools[${i}].name`, name: t.name }))),
  openAiToolParameters((body) => toolsOf(body).filter((t) => t?.type === "function").map((t) => ({ name: t.name, parameters: t.parameters }))),
  {
    id: "openai.responses.output-has-call",
    source: OPENAI_TOOLS,
    check: ({ body }) => {
      const items: any[] = Array.isArray(body?.input) ? body.input : [];
      const calls = new Set(items.filter((i) => i?.type === "function_call").map((i) => i.call_id));
      const orphan = items.find((i) => i?.type === "function_call_output" && !calls.has(i.call_id));
      return orphan ? { message: `No tool call found for function call output with call_id ${orphan.call_id}.`, param: "input" } : null;
    },
  },
  {
    id: "openai.responses.call-has-output",
    source: OPENAI_TOOLS,
    check: ({ body }) => {
      const items: any[] = Array.isArray(body?.input) ? body.input : [];
      const outputs = new Set(items.filter((i) => i?.type === "function_call_output").map((i) => i.call_id));
      const open = items.find((i) => i?.type === "function_call" && !outputs.has(i.call_id));
      return open ? { message: `No tool output found for function call ${open.call_id}.`, param: "input" } : null;
    },
  },
  {
    id: "openai.responses.unstored-reasoning-needs-encrypted-content",
    source: RESPONSES_STATE,
    check: ({ body }) => {
      if (body?.store !== false) return null;
      const item = (Array.isArray(body?.input) ? body.input : []).find((i: any) => i?.type === "reasoning" && typeof i.encrypted_content !== "string");
      return item
        ? { message: `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`, param: "input" }
        : null;
    },
  },
  {
    id: "openai.responses.reasoning-followed-by-its-item",
    source: "https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context",
    check: ({ body }) => {
      const items: any[] = Array.isArray(body?.input) ? body.input : [];
      const i = items.findIndex((item, k) => {
        if (item?.type !== "reasoning") return false;
        const next = items[k + 1];
        // What followed it in the model's output: an assistant message or a call, never another reasoning item or input.
        return !next || next.type === "reasoning" || (next.role && next.role !== "assistant") || /_output$/.test(String(next.type));
      });
      return i >= 0 ? { message: `Item '${items[i].id}' of type 'reasoning' was provided without its required following item.`, param: "input" } : null;
    },
  },
  samplingWithReasoning((body) => body?.reasoning?.effort),
];

/** Whether an assistant message lacks the reasoning text a thinking model requires back. */
function unreplayedReasoning(body: any): number {
  return messagesOf(body).findIndex((m) => m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0 && typeof m.reasoning_content !== "string");
}

const thinkingDisabled = (body: any) => body?.thinking?.type === "disabled";

/** DeepSeek V4 and the reasoner: thinking by default; a tool-calling turn's reasoning must come back. */
export const DEEPSEEK_RULES: readonly Rule[] = [
  ...CHAT_TOOL_PAIRING,
  {
    id: "deepseek.reasoning-content-replayed",
    source: "https://api-docs.deepseek.com/guides/thinking_mode",
    models: /^deepseek-(v4|reasoner)/,
    check: ({ body }) =>
      !thinkingDisabled(body) && unreplayedReasoning(body) >= 0 ? { message: "The `reasoning_content` in the thinking mode must be passed back to the API." } : null,
  },
  {
    id: "deepseek.text-only",
    source: "https://api-docs.deepseek.com/api/create-chat-completion",
    check: ({ body }) => {
      const messages = messagesOf(body);
      for (let i = 0; i < messages.length; i++)
        if (Array.isArray(messages[i].content)) {
          const part = messages[i].content.find((p: any) => p?.type !== "text");
          if (part) return { message: `Failed to deserialize the JSON body into the target type: messages[${i}]: unknown variant \`${part.type}\`, expected \`text\``, status: 422 };
        }
      return null;
    },
  },
];

/** Kimi K2.5 and later (and the K2 thinking models): thinking by default; reasoning must come back with tool calls. */
export const MOONSHOT_RULES: readonly Rule[] = [
  ...CHAT_TOOL_PAIRING,
  {
    id: "moonshot.reasoning-content-replayed",
    source: "https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model",
    models: /^kimi-k2(\.[5-9]|-thinking)/,
    check: ({ body }) => {
      const index = thinkingDisabled(body) ? -1 : unreplayedReasoning(body);
      return index >= 0 ? { message: `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${index}` } : null;
    },
  },
  {
    id: "moonshot.forced-tool-with-thinking",
    source: "https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model",
    models: /^kimi-k2(\.[5-9]|-thinking)/,
    check: ({ body }) =>
      !thinkingDisabled(body) && (body?.tool_choice === "required" || (body?.tool_choice && typeof body.tool_choice === "object"))
        ? { message: "tool_choice 'required' or a named function is not supported when thinking is enabled; use 'auto' or 'none'" }
        : null,
  },
];

/** Z.ai GLM: `thinking.type` is enabled or disabled (docs.z.ai chat completion reference). */
export const ZAI_RULES: readonly Rule[] = [
  ...CHAT_TOOL_PAIRING,
  {
    id: "zai.thinking-type",
    source: "https://docs.z.ai/api-reference/llm/chat-completion",
    check: ({ body }) =>
      body?.thinking !== undefined && !["enabled", "disabled"].includes(body.thinking?.type)
        ? { message: "Invalid API parameter, please check the documentation: thinking.type must be 'enabled' or 'disabled'", code: "1210" }
        : null,
  },
];

/** DashScope compatible mode: thinking output exists only as a stream. */
export const DASHSCOPE_RULES: readonly Rule[] = [
  ...CHAT_TOOL_PAIRING,
  {
    id: "dashscope.thinking-needs-stream",
    source: "https://www.alibabacloud.com/help/en/model-studio/deep-thinking",
    check: ({ body }) =>
      body?.enable_thinking === true && body?.stream !== true ? { message: "parameter.enable_thinking must be set to false for non-streaming calls", param: "enable_thinking" } : null,
  },
  {
    id: "dashscope.forced-tool-with-thinking",
    source: "https://www.alibabacloud.com/help/en/model-studio/deep-thinking",
    check: ({ body }) =>
      body?.enable_thinking === true && (body.tool_choice === "required" || (body.tool_choice && typeof body.tool_choice === "object"))
        ? { message: "<400> InternalError.Algo.InvalidParameter: The tool_choice parameter does not support being set to required or object in thinking mode" }
        : null,
  },
];

/** Gemini 3 through the OpenAI-compatible endpoint: each step's first function call carries its thought signature back. */
export const GEMINI_RULES: readonly Rule[] = [
  ...CHAT_TOOL_PAIRING,
  {
    id: "gemini.function-name",
    source: "https://ai.google.dev/api/caching#FunctionDeclaration",
    check: ({ body }) => {
      const i = toolsOf(body).findIndex((t) => typeof t?.function?.name === "string" && !/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(t.function.name));
      return i >= 0
        ? { message: `* GenerateContentRequest.tools[0].function_declarations[${i}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n` }
        : null;
    },
  },
  {
    id: "gemini.thought-signature-replayed",
    source: "https://ai.google.dev/gemini-api/docs/thought-signatures",
    models: /^(?:models\/)?gemini-3/,
    check: ({ body }) => {
      const messages = messagesOf(body);
      // Only the current turn is checked: the steps after the last user message.
      let start = messages.length;
      while (start > 0 && messages[start - 1].role !== "user") start--;
      for (let i = start; i < messages.length; i++) {
        const first = messages[i].role === "assistant" && Array.isArray(messages[i].tool_calls) ? messages[i].tool_calls[0] : undefined;
        if (first && typeof first.extra_content?.google?.thought_signature !== "string")
          return {
            message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first.function?.name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
          };
      }
      return null;
    },
  },
];

/** Mistral: a closed request schema (unknown fields are 422 `extra_forbidden`) and its own tool-call id format. */
const MISTRAL_FIELDS = new Set([
  "model", "messages", "temperature", "top_p", "max_tokens", "stream", "stop", "random_seed", "metadata", "response_format", "tools", "tool_choice",
  "presence_penalty", "frequency_penalty", "n", "prediction", "parallel_tool_calls", "prompt_mode", "safe_prompt", "reasoning_effort",
]);
const MISTRAL_CHAT = "https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post";
export const MISTRAL_RULES: readonly Rule[] = [
  {
    id: "mistral.unknown-field",
    source: MISTRAL_CHAT,
    check: ({ body }) => {
      const extra = Object.keys(body ?? {}).find((k) => !MISTRAL_FIELDS.has(k));
      return extra ? { message: "Extra inputs are not permitted", param: extra, code: "extra_forbidden" } : null;
    },
  },
  ...CHAT_TOOL_PAIRING,
  {
    id: "mistral.no-user-right-after-tool",
    source: "https://docs.mistral.ai/capabilities/function_calling/",
    check: ({ body }) => {
      const messages = messagesOf(body);
      const i = messages.findIndex((m, k) => k > 0 && m.role === "user" && messages[k - 1].role === "tool");
      return i >= 0 ? { message: "Unexpected role 'user' after role 'tool'", type: "invalid_request_message_order", code: "3230" } : null;
    },
  },
  {
    id: "mistral.tool-call-id-format",
    source: "https://docs.mistral.ai/capabilities/function_calling/",
    check: ({ body, emitted }) => {
      for (const m of messagesOf(body)) {
        const ids: string[] = m.role === "tool" ? [m.tool_call_id] : m.role === "assistant" && Array.isArray(m.tool_calls) ? m.tool_calls.map((c: any) => c.id) : [];
        // The fake's own ids come from the test's script; an id the client made up or changed is refused.
        const bad = ids.find((id) => !/^[a-zA-Z0-9]{9}$/.test(String(id)) && !emitted?.callIds.has(id));
        if (bad !== undefined) return { message: `Tool call id was ${bad} but must be a-z, A-Z, 0-9, with a length of 9.`, type: "invalid_function_call", code: "3280" };
      }
      return null;
    },
  },
];

/** Groq: fields its OpenAI compatibility layer refuses with a 400. */
export const GROQ_RULES: readonly Rule[] = [
  ...CHAT_TOOL_PAIRING,
  {
    id: "groq.unsupported-field",
    source: "https://console.groq.com/docs/openai",
    check: ({ body }) => {
      const field = ["logprobs", "logit_bias", "top_logprobs"].find((f) => body?.[f] !== undefined);
      if (field) return { message: `property '${field}' is unsupported`, param: field };
      const named = messagesOf(body).findIndex((m) => m.name !== undefined);
      if (named >= 0) return { message: `'messages.${named}' : property 'name' is unsupported`, param: `messages.${named}.name` };
      return body?.n !== undefined && body.n !== 1 ? { message: "'n' : number must be at most 1", param: "n" } : null;
    },
  },
];

/** Cerebras: OpenAI fields its API refuses with a 400, and only `auto`/`none` as tool_choice. */
export const CEREBRAS_RULES: readonly Rule[] = [
  ...CHAT_TOOL_PAIRING,
  {
    id: "cerebras.unsupported-field",
    source: "https://inference-docs.cerebras.ai/resources/openai",
    check: ({ body }) => {
      const field = ["frequency_penalty", "logit_bias", "presence_penalty", "parallel_tool_calls", "service_tier"].find((f) => body?.[f] !== undefined);
      if (field) return { message: `Unsupported parameter: '${field}' is not supported by this API.`, param: field };
      const choice = body?.tool_choice;
      return choice !== undefined && choice !== "auto" && choice !== "none" ? { message: "tool_choice must be 'auto' or 'none'.", param: "tool_choice" } : null;
    },
  },
];

/** xAI: which Grok models take `reasoning_effort` and which refuse penalties and stop sequences. */
const XAI_REASONING_DOC = "https://docs.x.ai/docs/guides/reasoning";
const XAI_NO_EFFORT = family("Grok models without reasoning_effort (grok-4.20*, grok-4 (0709), grok-4-fast*, grok-4-1-fast*, grok-code-fast*)", (m) =>
  /^grok-(4\.20|4-0709|4$|4-latest|4-fast|4-1-fast|code-fast)/.test(m),
);
const XAI_REASONING = family("Grok reasoning models (grok-3-mini, grok-4*, except *-non-reasoning)", (m) => /^grok-(3-mini|4)/.test(m) && !/non-reasoning/.test(m));
const camel = (s: string) => s.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
export const XAI_RULES: readonly Rule[] = [
  ...CHAT_TOOL_PAIRING,
  {
    id: "xai.reasoning-effort-unsupported",
    source: XAI_REASONING_DOC,
    models: XAI_NO_EFFORT,
    check: ({ body }) => (body?.reasoning_effort !== undefined ? { message: `Model ${body.model} does not support parameter reasoningEffort.` } : null),
  },
  {
    id: "xai.reasoning-effort-values",
    source: XAI_REASONING_DOC,
    check: ({ body }) =>
      body?.reasoning_effort !== undefined && !["none", "low", "medium", "high"].includes(body.reasoning_effort)
        ? { message: `Invalid reasoning effort '${body.reasoning_effort}': expected one of none, low, medium, high.` }
        : null,
  },
  {
    id: "xai.sampling-on-reasoning-model",
    source: XAI_REASONING_DOC,
    models: XAI_REASONING,
    check: ({ body }) => {
      const field = ["presence_penalty", "frequency_penalty", "stop"].find((f) => body?.[f] !== undefined);
      return field ? { message: `Model ${body.model} does not support parameter ${camel(field)}.` } : null;
    },
  },
];

