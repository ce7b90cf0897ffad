// Mistral's chat API. Its request schema is closed (an unknown field is a 422 `extra_forbidden`), a user
// message may not follow a tool message ("Unexpected role 'user' after role 'tool'"), so images from
// tools cannot follow the tool messages as Chat Completions' other vendors take them: they reach the
// model as a text note. Reasoning models take `reasoning_effort`.
// Sources: docs.mistral.ai/api (chat completion), docs.mistral.ai/capabilities/function_calling.
import type { FamilyRule, ModelFamily } from "./types.ts";

export const MISTRAL: ModelFamily = {
  id: "mistral",
  vendor: "Mistral",
  title: "Mistral models (Large, Medium, Small, Magistral, Codestral, Pixtral)",
  sources: ["https://docs.mistral.ai/capabilities/function_calling/", "https://docs.mistral.ai/api/"],
  thinking: { form: "none" },
  effort: "reasoning_effort",
  replay: { field: "none", on: "all", mandatory: false, whenEmpty: null },
  toolResultImages: "none",
  cacheControl: "automatic",
  maxOutputField: "max_tokens",
  betas: [],
  refusedWithReasoning: [],
  promptVariant: "open",
};

export const MISTRAL_RULES: readonly FamilyRule[] = [
  { family: MISTRAL, dialects: ["b_chat_completions"], match: (id) => /^(?:mistral|magistral|codestral|ministral|pixtral|devstral|open-mi[sx]tral)/.test(id) },
];
