// Picking a model by reference (`name` or `name(level)`) and the provider it is called through: used at
// session start and by every later switch (`/model`, a facet's model pin), so both resolve alike.
import { parseModelRef } from "../../config/defaults.ts";
import type { LoadedConfig } from "../../config/load.ts";
import { findModelKey, type ResolvedModel } from "../../config/models.ts";
import { catalogDefaults } from "../../providers/catalog.ts";
import type { ReasoningRequest } from "../../providers/request.ts";
import { ProviderConfigError, resolveProvider, type ResolvedProvider } from "../../providers/resolve.ts";

export const NO_MODEL_HELP = [
  "No model provider is configured, so there is no model to talk to.",
  "Export a key and run agent again; with no config file the key chooses the provider:",
  "  export ANTHROPIC_API_KEY=...   # or OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY,",
  "                                # XAI_API_KEY, GROQ_API_KEY, MISTRAL_API_KEY, ... (`agent models` lists them all)",
  // The file is named by `agent config path`, not here: XDG_CONFIG_HOME moves it, and this text has no env.
  "Or configure a provider in the global config file (`agent config path` shows where; README: The config",
  "file), for example a local OpenAI-compatible server:",
  "  providers: { local: { kind: { type: custom_b_compatible }, url: \"http://127.0.0.1:8080/v1\", auth: { type: no_auth } } }",
  "  models: { my-model: { provider: local, class: full, context_window: 32768 } }",
  "Or try the offline demo (scripted answers, no account): add --demo.",
].join("\n");

/** NO_MODEL_HELP, after what a key variable set without its resource address is missing. */
function noModelHelp(loaded: LoadedConfig): string {
  const incomplete = loaded.fromEnvironment?.incomplete ?? [];
  const lines = incomplete.map((i) => `${i.keyVar} is set, but the ${i.name} provider also needs ${i.missing} (your resource's address).`);
  return [...lines, NO_MODEL_HELP].join("\n");
}

export class ModelChoiceError extends Error {
  constructor(
    readonly code: "no_model" | "unknown_model" | "provider",
    message: string,
  ) {
    super(message);
    this.name = "ModelChoiceError";
  }
}

export interface ModelChoice {
  model: ResolvedModel;
  /** The effort level asked for (or the model's default level); null for models without effort levels. */
  effort: string | null;
  reasoning: ReasoningRequest | null;
  provider: ResolvedProvider;
}

/** The configured model keys, sorted (for error messages and `/model` without arguments). */
export function modelKeys(loaded: LoadedConfig): string[] {
  return [...loaded.models.models.keys()].sort();
}

/** `requested` null: `defaults.full`. Throws ModelChoiceError naming what is configured. */
export function chooseModel(loaded: LoadedConfig, requested: string | null | undefined): ModelChoice {
  const table = loaded.models.models;
  let model: ResolvedModel | undefined;
  let effort: string | null;
  if (requested) {
    const { name, level } = parseModelRef(requested);
    model = table.get(findModelKey(loaded.models, name) ?? name);
    if (!model) {
      const known = modelKeys(loaded);
      throw new ModelChoiceError("unknown_model", known.length ? `unknown model '${name}'; configured models: ${known.join(", ")}` : NO_MODEL_HELP);
    }
    if (level !== null && level !== undefined) checkLevel(model, level);
    effort = level ?? defaultLevel(model);
  } else {
    const choice = loaded.defaults.full;
    model = choice ? table.get(choice.model) : undefined;
    if (!model) throw new ModelChoiceError("no_model", noModelHelp(loaded));
    effort = choice!.effort;
  }
  return { model, effort, reasoning: reasoningFor(model, effort), provider: providerFor(loaded, model) };
}

/** How a choice is written back as a reference: `name` or `name(level)`. */
export function modelRef(choice: Pick<ModelChoice, "model" | "effort">): string {
  return choice.effort && choice.effort !== defaultLevel(choice.model) ? `${choice.model.key}(${choice.effort})` : choice.model.key;
}

/** A level must be one the model lists: an unknown one would reach the provider as a bad request. */
function checkLevel(model: ResolvedModel, level: string): void {
  if (model.reasoning.type !== "effort") throw new ModelChoiceError("unknown_model", `model '${model.key}' takes no reasoning level ('${level}' was asked); use '${model.key}'`);
  if (!model.reasoning.levels.includes(level)) {
    throw new ModelChoiceError("unknown_model", `model '${model.key}' has no reasoning level '${level}'; its levels: ${model.reasoning.levels.join(", ") || "(none are listed)"}`);
  }
}

function defaultLevel(model: ResolvedModel): string | null {
  return model.reasoning.type === "effort" ? (model.reasoning.default_level ?? null) : null;
}

function reasoningFor(model: ResolvedModel, effort: string | null): ReasoningRequest | null {
  if (model.reasoning.type === "effort") return { effort, enabled: true };
  if (model.reasoning.type === "thinking") return { effort: null, enabled: true };
  return null;
}

function providerFor(loaded: LoadedConfig, model: ResolvedModel): ResolvedProvider {
  const settings = loaded.config.providers?.[model.provider];
  if (!settings) throw new ModelChoiceError("provider", `model '${model.key}' uses provider '${model.provider}', which is not configured`);
  try {
    return resolveProvider(model.provider, settings as never, catalogDefaults(settings));
  } catch (error) {
    if (error instanceof ProviderConfigError) throw new ModelChoiceError("provider", error.message);
    throw error;
  }
}
