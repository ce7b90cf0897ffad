// The autonomous matcher's judge: one short call to the `mini` model (or
// `autonomous_permission_matcher.classifier_model`) through the provider layer, answered with a strict
// JSON verdict. Anything but a well-formed verdict is a failure, which the gate turns into `ask`.
import type { LoadedConfig } from "../config/load.ts";
import { parseModelRef } from "../config/defaults.ts";
import { callProvider } from "../providers/call.ts";
import type { ProviderCallDeps } from "../providers/client.ts";
import type { Clock } from "../util/clock.ts";
import { catalogDefaults } from "../providers/catalog.ts";
import type { ProviderRequest } from "../providers/request.ts";
import { resolveProvider } from "../providers/resolve.ts";
import { DEFAULT_RETRY, type ProviderSettings } from "../providers/settings.ts";
import prompt from "./classifier.txt" with { type: "text" };

export interface ClassifierInput {
  tool: string;
  input: Record<string, unknown>;
  cwd: string;
  projectRoot: string;
  /** `autonomous_permission_matcher.classifier_rules`. */
  rules: string | null;
}

export interface ClassifierVerdict {
  decision: "allow" | "deny";
  reason: string;
}

/** Decides one call; throws ClassifierError (or a provider error) when it cannot. */
export type Classifier = (input: ClassifierInput, signal?: AbortSignal) => Promise<ClassifierVerdict>;

export class ClassifierError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClassifierError";
  }
}

export const CLASSIFIER_PROMPT = prompt;
const MAX_REASON = 300;

/** Reads the model's answer: one JSON object `{decision, reason}`, optionally inside a code fence. */
export function parseVerdict(text: string): ClassifierVerdict {
  const body = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, "$1");
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new ClassifierError("the classifier did not answer with JSON");
  }
  const v = value as { decision?: unknown; reason?: unknown };
  if (!v || typeof v !== "object" || (v.decision !== "allow" && v.decision !== "deny"))
    throw new ClassifierError(`the classifier's verdict has no decision "allow" or "deny"`);
  const reason = typeof v.reason === "string" && v.reason.trim() ? v.reason.trim().slice(0, MAX_REASON) : v.decision === "allow" ? "allowed" : "the classifier gave no reason";
  return { decision: v.decision, reason };
}

export interface ProviderClassifierOptions {
  loaded: LoadedConfig;
  clock: Clock;
  /** Redacts secret words from the call before it is shown to the model. */
  redact: (text: string) => string;
  deps?: Partial<ProviderCallDeps>;
}

/** The classifier backed by the configured model; throws ClassifierError when none is configured. */
export function providerClassifier(opts: ProviderClassifierOptions): Classifier {
  const { loaded } = opts;
  const ref = loaded.config.autonomous_permission_matcher?.classifier_model ?? null;
  const pinned = ref ? parseModelRef(ref) : null;
  const mini = loaded.defaults.mini;
  const choice = pinned ? { name: pinned.name, effort: pinned.level } : mini ? { name: mini.model, effort: mini.effort } : null;
  return async (input, signal) => {
    if (!choice) throw new ClassifierError("no model for the classifier: set defaults.mini (or defaults.full) or autonomous_permission_matcher.classifier_model");
    const model = loaded.models.models.get(choice.name);
    if (!model) throw new ClassifierError(`the classifier model '${choice.name}' is not a configured model`);
    const settings = loaded.config.providers?.[model.provider] as ProviderSettings | undefined;
    if (!settings) throw new ClassifierError(`the classifier model's provider '${model.provider}' is not configured`);
    const provider = resolveProvider(model.provider, settings, catalogDefaults(settings));
    const call = opts.redact(JSON.stringify({ user_rules: input.rules ?? "", tool: input.tool, arguments: input.input, cwd: input.cwd, project_root: input.projectRoot }, null, 1));
    const request: ProviderRequest = {
      model: model.provider_name,
      system: CLASSIFIER_PROMPT,
      messages: [{ role: "user", content: [{ type: "text", text: `Decide this tool call:\n${call}` }] }],
      tools: [],
      max_output_tokens: Math.min(model.max_output_tokens_per_turn, 1024),
      stop_sequences: [],
      reasoning: model.reasoning.type === "effort" && choice.effort ? { effort: choice.effort, enabled: true } : null,
      request_options: {},
    };
    const daemon = loaded.config.daemon;
    let text = "";
    for await (const event of callProvider({
      provider,
      retry: { ...DEFAULT_RETRY, ...stripNulls(daemon?.retry ?? {}) },
      deps: { clock: opts.clock, trustStore: loaded.trustStore ?? null, stream: daemon ?? null, ...opts.deps },
      buildRequest: () => request,
      signal,
    })) {
      if (event.type === "text_delta") text += event.text;
      else if (event.type === "retry") text = "";
    }
    return parseVerdict(text);
  };
}

function stripNulls<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}
