// The one place a model id is matched to its family: every vendor's rules in order, then the dialect's
// generic description; `models.<name>.api` in the config overrides the result.
import type { BaseDialect } from "../protocols.ts";
import { ANTHROPIC_RULES } from "./anthropic.ts";
import { DEEPSEEK_RULES } from "./deepseek.ts";
import { GEMINI_RULES } from "./gemini.ts";
import { GENERIC } from "./generic.ts";
import { MINIMAX_RULES } from "./minimax.ts";
import { MISTRAL_RULES } from "./mistral.ts";
import { MOONSHOT_RULES } from "./moonshot.ts";
import { OPENAI_RULES } from "./openai.ts";
import { QWEN_RULES } from "./qwen.ts";
import type { FamilyRule, ModelApi, ModelApiOverride, ModelFamily, ToolResultImages } from "./types.ts";

export type { ModelApiOverride };
import { ZAI_RULES } from "./zai.ts";

export const FAMILY_RULES: readonly FamilyRule[] = [
  ...ANTHROPIC_RULES,
  ...OPENAI_RULES,
  ...DEEPSEEK_RULES,
  ...MOONSHOT_RULES,
  ...ZAI_RULES,
  ...MINIMAX_RULES,
  ...QWEN_RULES,
  ...MISTRAL_RULES,
  ...GEMINI_RULES,
];

/** Every described family once, in rule order, then the generic ones (docs table, `api.family` names). */
export function allFamilies(): ModelFamily[] {
  const seen = new Map<string, ModelFamily>();
  for (const r of FAMILY_RULES) seen.set(r.family.id, r.family);
  for (const f of Object.values(GENERIC)) seen.set(f.id, f);
  return [...seen.values()];
}

/**
 * The id as the rules read it: lower case, the last path segment (`anthropic/claude-sonnet-5`,
 * `accounts/fireworks/models/kimi-k2p6`), a Bedrock-style `anthropic.` prefix and a `:free`-style tag
 * dropped, version dots and Fireworks' `p` written as dashes (`claude-haiku-4.5`, `kimi-k2p6` -> `-4-5`, `k2-6`).
 */
export function normalizeModelId(model: string): string {
  const last = model.toLowerCase().split("/").pop() ?? "";
  return last
    .replace(/:[^:]*$/, "")
    .replace(/^[a-z]+\.(?=claude)/, "")
    .replace(/(\d)[.p](\d)/g, "$1-$2");
}

export class ModelApiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelApiError";
  }
}

/** What the model catalog (models.dev) knows of the model's API, used where no family matches it. */
export interface CatalogApiFacts {
  interleaved?: "reasoning_content" | null;
}

/**
 * The family of `model` on `dialect`: its family by id, else the dialect's generic description with the
 * catalog's facts, then the config's override. Throws ModelApiError for an `api.family` that does not exist.
 */
export function describeModel(dialect: BaseDialect, model: string, override: ModelApiOverride | null = null, facts: CatalogApiFacts = {}): ModelApi {
  let family: ModelFamily | undefined;
  let origin: ModelApi["origin"] = "family";
  if (override?.family) {
    family = allFamilies().find((f) => f.id === override.family);
    if (!family) throw new ModelApiError(`api.family '${override.family}' is not a known family; known: ${allFamilies().map((f) => f.id).join(", ")}`);
    origin = "config";
  } else {
    const id = normalizeModelId(model);
    family = FAMILY_RULES.find((r) => r.dialects.includes(dialect) && r.match(id))?.family;
  }
  if (!family) {
    family = GENERIC[dialect];
    origin = "default";
    // models.dev marks models whose reasoning goes back in reasoning_content (`interleaved.field`).
    if (facts.interleaved === "reasoning_content" && dialect === "b_chat_completions") {
      family = { ...family, replay: { field: "reasoning_content", on: "tool_calls", mandatory: false, whenEmpty: null } };
      origin = "catalog";
    }
  }
  const api: ModelApi = { ...family, origin };
  if (!override) return api;
  const changed = applyOverride(api, override, dialect);
  return changed ? { ...changed, origin: "config" } : api;
}

/** Where each dialect puts images from tools (dialects/tool-result-parts.ts). */
const NATIVE_IMAGES: Record<BaseDialect, ToolResultImages> = { a_messages: "native", b_chat_completions: "user_message", b_responses: "native" };

function applyOverride(api: ModelApi, o: ModelApiOverride, dialect: BaseDialect): ModelApi | null {
  let out: ModelApi | null = null;
  const set = <K extends keyof ModelApi>(key: K, value: ModelApi[K]) => {
    out = { ...(out ?? api), [key]: value };
  };
  if (o.thinking) set("thinking", o.thinking === "adaptive" ? { form: "adaptive", display: o.thinking_display ?? null } : { form: o.thinking });
  else if (o.thinking_display && api.thinking.form === "adaptive") set("thinking", { form: "adaptive", display: o.thinking_display });
  if (o.reasoning_replay) {
    const replay = o.reasoning_replay === "none" ? { ...api.replay, field: "none" as const, mandatory: false } : { field: "reasoning_content" as const, on: "tool_calls" as const, mandatory: true, whenEmpty: "" };
    set("replay", replay);
  }
  if (o.cache_control) set("cacheControl", o.cache_control);
  if (o.tool_result_images) set("toolResultImages", o.tool_result_images === "none" ? "none" : NATIVE_IMAGES[dialect]);
  return out;
}

/** Budget-form thinking: the level's share of the output limit, at least 1024 and below max_tokens. */
export function budgetFor(effort: string | null, maxTokens: number, explicit: number | null | undefined): number {
  if (explicit) return explicit;
  const byLevel: Record<string, number> = { minimal: 1024, low: 4096, medium: 8192, high: 16000, xhigh: 24000, max: 32000 };
  const wanted = (effort && byLevel[effort]) || 16000;
  return Math.max(1024, Math.min(wanted, maxTokens - 1024));
}
