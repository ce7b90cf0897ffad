import { Type } from "@sinclair/typebox";
import { Nullable, StringList, Uint32 } from "./common.ts";

export const MODEL_CLASSES = ["full", "mini", "nano"] as const;
export const ModelClass = Type.Union(MODEL_CLASSES.map((c) => Type.Literal(c)));

export const ModelClassDefaults = Type.Object(
  {
    full: Type.Optional(Nullable(Type.String({ description: "Primary model; `name(level)` sets the default effort." }))),
    mini: Type.Optional(Nullable(Type.String({ description: "Compaction and classifier model; falls back to full." }))),
    nano: Type.Optional(Nullable(Type.String({ description: "Smallest class; falls back to mini, then full." }))),
  },
  { description: "Default model per size class." },
);

export const ModelReasoning = Type.Union(
  [
    Type.Object({ type: Type.Literal("no_reasoning") }),
    Type.Object({
      type: Type.Literal("effort"),
      effort_set: Type.String(),
      can_disable: Type.Boolean(),
      levels: Type.Array(Type.String({ minLength: 1 }), { description: "Levels in provider order." }),
      default_level: Type.Optional(Nullable(Type.String({ description: "Must be one of `levels`." }))),
    }),
    Type.Object({ type: Type.Literal("thinking"), can_disable: Type.Boolean() }),
  ],
  { description: "Reasoning capability (discriminator `type`)." },
);

/**
 * `models.<name>.api`: what the model's API accepts, when the built-in family (matched by model id,
 * src/providers/families/) is wrong for it: another family by id, or single rules.
 */
export const ModelApi = Type.Object(
  {
    family: Type.Optional(Nullable(Type.String({ minLength: 1, description: "A family id (`agent models` docs table): claude-adaptive-only, deepseek-thinking, ..." }))),
    thinking: Type.Optional(Nullable(Type.Union((["adaptive", "budget", "none"] as const).map((v) => Type.Literal(v)), { description: "Messages thinking form." }))),
    thinking_display: Type.Optional(Nullable(Type.Union((["summarized", "omitted"] as const).map((v) => Type.Literal(v)), { description: "Adaptive thinking: whether the thinking text is returned." }))),
    reasoning_replay: Type.Optional(
      Nullable(Type.Union((["reasoning_content", "none"] as const).map((v) => Type.Literal(v)), { description: "Chat Completions: send reasoning back on messages with tool calls." })),
    ),
    cache_control: Type.Optional(Nullable(Type.Union((["breakpoints", "automatic"] as const).map((v) => Type.Literal(v)), { description: "Explicit cache_control marks, or the vendor's own caching." }))),
    tool_result_images: Type.Optional(
      Nullable(Type.Union((["native", "none"] as const).map((v) => Type.Literal(v)), { description: "Images from tools in the dialect's own form, or `none`: a text note instead." })),
    ),
  },
  { description: "Overrides of the model family's API description." },
);

export const MODEL_VARIANTS = ["family_a", "family_b", "family_c", "other"] as const;
export const TOOL_LOADING = ["eager", "native_deferred", "no_tools"] as const;

/** Request option values: booleans, or strings of at most 512 UTF-8 bytes (bytes checked at validation). */
export const REQUEST_OPTION_MAX_BYTES = 512;

export const ModelOverride = Type.Object({
  enabled: Type.Optional(Nullable(Type.Boolean({ description: "`false` removes a model that would otherwise be offered." }))),
  provider_name: Type.Optional(Nullable(Type.String({ description: "Model identifier sent to the provider." }))),
  variant: Type.Optional(Nullable(Type.Union(MODEL_VARIANTS.map((v) => Type.Literal(v))))),
  class: Type.Optional(Nullable(ModelClass)),
  max_tokens: Type.Optional(Nullable(Uint32({ description: "Absolute output ceiling; validation only." }))),
  max_output_tokens_per_turn: Type.Optional(Nullable(Uint32({ description: "Per-turn output limit sent to the provider." }))),
  stop_sequences: Type.Optional(StringList("Stop strings forwarded to the provider.")),
  provider: Type.Optional(Nullable(Type.String({ description: "Name of a configured provider; required for custom models." }))),
  reasoning: Type.Optional(Nullable(ModelReasoning)),
  edit_format: Type.Optional(Nullable(Type.String())),
  context_window: Type.Optional(Nullable(Uint32({ description: "Context size in tokens; required for every model." }))),
  compaction_threshold: Type.Optional(
    Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1, description: "Share of the context window at which compaction triggers." })),
  ),
  tool_loading: Type.Optional(Nullable(Type.Union(TOOL_LOADING.map((t) => Type.Literal(t))))),
  supports_vision: Type.Optional(Nullable(Type.Boolean())),
  forced_tool_choice_supported: Type.Optional(Nullable(Type.Boolean())),
  max_tool_batch_size: Type.Optional(Nullable(Uint32())),
  request_option_defaults: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.String({ maxLength: REQUEST_OPTION_MAX_BYTES })]), {
      description: "Request options applied by default; string values at most 512 bytes UTF-8.",
    }),
  ),
  api: Type.Optional(Nullable(ModelApi)),
  inherits: Type.Optional(Nullable(Type.String({ description: "Model whose identity, class, window and request defaults this one inherits." }))),
});
