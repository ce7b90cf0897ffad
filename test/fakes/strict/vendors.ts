// The strict fakes' vendors: for every catalog provider (src/providers/catalog.ts), the rule table its
// vendor applies and the vendor's error body. The wire dialect comes from the catalog entry's
// protocol, so a provider added to the catalog without a vendor here fails `strictProfile`.
import { CATALOG_PROVIDERS, catalogProvider } from "../../../src/providers/catalog.ts";
import { PROTOCOL_INFO } from "../../../src/providers/protocols.ts";
import type { Dialect } from "../request-invariants.ts";
import { ANTHROPIC_RULES, MESSAGES_SHAPE_RULES, MINIMAX_RULES } from "./anthropic-rules.ts";
import {
  CEREBRAS_RULES, CHAT_TOOL_PAIRING, DASHSCOPE_RULES, DEEPSEEK_RULES, GEMINI_RULES, GROQ_RULES, MISTRAL_RULES, MOONSHOT_RULES, OPENAI_CHAT_RULES,
  OPENAI_RESPONSES_RULES, XAI_RULES, ZAI_RULES,
} from "./chat-rules.ts";
import * as errors from "./error-bodies.ts";
import { openAiSchemaRule } from "./openai-schema.ts";
import type { Emitted, Rule, VendorProfile } from "./types.ts";

type VendorEntry = Omit<VendorProfile, "vendor" | "dialect">;

const OPENAI_CHAT: VendorEntry = { rules: [openAiSchemaRule("chat"), ...CHAT_TOOL_PAIRING, ...OPENAI_CHAT_RULES], refuse: errors.openaiError };
const OPENAI_RESPONSES: VendorEntry = { rules: [openAiSchemaRule("responses"), ...OPENAI_RESPONSES_RULES], refuse: errors.openaiError };
/** Messages-compatible endpoints of other vendors: the request shape; their own extensions are not refused. */
const MESSAGES_COMPATIBLE: VendorEntry = { rules: MESSAGES_SHAPE_RULES, refuse: errors.anthropicError };
const HOSTED_OPEN_MODELS: VendorEntry = { rules: CHAT_TOOL_PAIRING, refuse: errors.messageTypeError, reasoningField: "reasoning_content" };

const VLLM_RULES: readonly Rule[] = [
  {
    id: "vllm.stream-options-need-stream",
    source: "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/protocol.py (ChatCompletionRequest.validate_stream_options)",
    check: ({ body }) => (body?.stream_options !== undefined && body?.stream !== true ? { message: "Stream options can only be defined when `stream=True`." } : null),
  },
];

/** By catalog provider name. Local servers accept nearly any OpenAI-shaped body; their table is short on purpose. */
const BY_PROVIDER: Record<string, VendorEntry> = {
  anthropic: { rules: ANTHROPIC_RULES, refuse: errors.anthropicError },
  "azure-anthropic": { rules: ANTHROPIC_RULES, refuse: errors.anthropicError },
  minimax: { rules: MINIMAX_RULES, refuse: errors.anthropicError },
  "kimi-for-coding": MESSAGES_COMPATIBLE,
  "zai-coding-plan": MESSAGES_COMPATIBLE,
  openai: OPENAI_RESPONSES,
  chatgpt: OPENAI_RESPONSES,
  azure: OPENAI_CHAT,
  "github-models": OPENAI_CHAT,
  google: { rules: GEMINI_RULES, refuse: errors.geminiError },
  openrouter: { rules: CHAT_TOOL_PAIRING, refuse: errors.openrouterError, reasoningField: "reasoning" },
  deepseek: { rules: DEEPSEEK_RULES, refuse: errors.deepseekError, reasoningField: "reasoning_content" },
  moonshot: { rules: MOONSHOT_RULES, refuse: errors.messageTypeError, reasoningField: "reasoning_content" },
  zai: { rules: ZAI_RULES, refuse: errors.zaiError, reasoningField: "reasoning_content" },
  dashscope: { rules: DASHSCOPE_RULES, refuse: errors.dashscopeError, reasoningField: "reasoning_content" },
  xai: { rules: XAI_RULES, refuse: errors.xaiError, reasoningField: "reasoning_content" },
  groq: { rules: GROQ_RULES, refuse: errors.messageTypeError, reasoningField: "reasoning" },
  mistral: { rules: MISTRAL_RULES, refuse: errors.mistralError },
  together: HOSTED_OPEN_MODELS,
  fireworks: HOSTED_OPEN_MODELS,
  huggingface: HOSTED_OPEN_MODELS,
  cerebras: { rules: CEREBRAS_RULES, refuse: errors.messageTypeError, reasoningField: "reasoning" },
  vllm: { rules: VLLM_RULES, refuse: errors.localServerError, reasoningField: "reasoning_content" },
  ollama: { rules: [], refuse: errors.localServerError, reasoningField: "reasoning" },
  lmstudio: { rules: [], refuse: errors.localServerError, reasoningField: "reasoning_content" },
  llamacpp: { rules: [], refuse: errors.localServerError, reasoningField: "reasoning_content" },
};

/**
 * Names beyond the catalog: OpenAI through Chat Completions, and the rules every vendor of a dialect
 * shares (the plain fakes' default, see DIALECT_DEFAULT in ../provider-fake.ts).
 */
const EXTRA: Record<string, { dialect: Dialect; entry: VendorEntry }> = {
  "openai-chat": { dialect: "b_chat_completions", entry: OPENAI_CHAT },
  "messages-compatible": { dialect: "a_messages", entry: MESSAGES_COMPATIBLE },
  "chat-compatible": { dialect: "b_chat_completions", entry: { rules: CHAT_TOOL_PAIRING, refuse: errors.openaiError } },
};

/** Every name `strictProfile` accepts: catalog provider names (aliases too) and the extra vendors. */
export function strictVendorNames(): string[] {
  return [...CATALOG_PROVIDERS.filter((p) => p.protocol !== "test").map((p) => p.name), ...Object.keys(EXTRA)];
}

/** The vendor description for a catalog provider name or alias (`deepseek`, `kimi`, `a`) or an extra vendor (`openai-chat`). */
export function strictProfile(name: string): VendorProfile {
  const extra = EXTRA[name];
  if (extra) return { vendor: name, dialect: extra.dialect, ...extra.entry };
  const provider = catalogProvider(name);
  if (!provider || provider.protocol === "test") throw new Error(`no strict fake for '${name}': expected one of ${strictVendorNames().join(", ")}`);
  const entry = BY_PROVIDER[provider.name];
  if (!entry) throw new Error(`catalog provider '${provider.name}' has no vendor rules in test/fakes/strict/vendors.ts`);
  return { vendor: provider.name, dialect: PROTOCOL_INFO[provider.protocol].baseDialect, ...entry };
}

/** The first rule of `profile` the request breaks, with the rule's id; null when the vendor would accept it. */
export function firstBrokenRule(
  profile: VendorProfile,
  body: any,
  headers: Record<string, string>,
  emitted?: Emitted,
): { rule: Rule; message: string; refusal: ReturnType<VendorProfile["refuse"]> } | null {
  const model = typeof body?.model === "string" ? body.model : "";
  for (const rule of profile.rules) {
    if (rule.models && !rule.models.test(model)) continue;
    const broken = rule.check({ body, headers, emitted });
    if (broken) return { rule, message: broken.message, refusal: profile.refuse(broken) };
  }
  return null;
}
