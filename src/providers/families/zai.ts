// Z.ai's GLM models (4.5 and later). Thinking is on by default from GLM-4.7 and interleaved between tool
// calls: "thinking blocks should be explicitly preserved and returned together with the tool results";
// the API does not refuse a request without them. Sources: docs.z.ai/guides/capabilities/thinking-mode,
// docs.z.ai/api-reference/llm/chat-completion.
import type { FamilyRule, ModelFamily } from "./types.ts";

const SOURCES = ["https://docs.z.ai/guides/capabilities/thinking-mode"] as const;

export const GLM_CHAT: ModelFamily = {
  id: "glm",
  vendor: "Z.ai",
  title: "GLM-4.5 and later",
  sources: SOURCES,
  thinking: { form: "none" },
  effort: "reasoning_effort",
  replay: { field: "reasoning_content", on: "tool_calls", mandatory: false, whenEmpty: null },
  toolResultImages: "user_message",
  cacheControl: "automatic",
  maxOutputField: "max_tokens",
  betas: [],
  refusedWithReasoning: [],
  promptVariant: "open",
};

/** The GLM Coding Plan speaks Messages: thinking blocks go back verbatim, caching is the vendor's. */
export const GLM_MESSAGES: ModelFamily = {
  ...GLM_CHAT,
  id: "glm-messages",
  title: "GLM on a Messages endpoint (GLM Coding Plan)",
  sources: [...SOURCES, "https://docs.z.ai/scenario-example/develop-tools/claude"],
  thinking: { form: "budget" },
  effort: null,
  replay: { field: "thinking_blocks", on: "all", mandatory: false, whenEmpty: null },
  toolResultImages: "native",
};

const glm = (id: string) => /(?:^|-)glm-(?:4-[5-9]|[5-9])/.test(id);

export const ZAI_RULES: readonly FamilyRule[] = [
  { family: GLM_CHAT, dialects: ["b_chat_completions"], match: glm },
  { family: GLM_MESSAGES, dialects: ["a_messages"], match: glm },
];
