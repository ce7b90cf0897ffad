// Gemini over Google's OpenAI-compatible Chat Completions endpoint (and routers that pass it through).
// The request is the generic Chat Completions one (`reasoning_effort` maps to Gemini's thinking level;
// images after the tool messages); the thought signatures on tool calls go back with each call
// (dialects/b-chat-completions.ts). Described apart for the system prompt's wording: Gemini follows a
// prompt that states its rules as a numbered workflow better than the terse one others get.
// Source: ai.google.dev/gemini-api/docs/openai.
import { GENERIC } from "./generic.ts";
import type { FamilyRule, ModelFamily } from "./types.ts";

export const GEMINI_CHAT: ModelFamily = {
  ...GENERIC.b_chat_completions,
  id: "gemini",
  vendor: "Google",
  title: "Gemini over Chat Completions (Google's OpenAI-compatible endpoint, OpenRouter)",
  sources: ["https://ai.google.dev/gemini-api/docs/openai"],
  promptVariant: "gemini",
};

export const GEMINI_RULES: readonly FamilyRule[] = [{ family: GEMINI_CHAT, dialects: ["b_chat_completions"], match: (id) => /^gemini-/.test(id) }];
