// `agent models check [MODEL] [--json]`: one minimal real request per model (the configured default models,
// and for every configured provider none of them uses, its catalog default or first model; with nothing
// configured, the local server a session would find), built by the
// same code as a session's requests (model family, default thinking form and effort, headers, auth), with
// the smallest output limit the request's form accepts. Reports per model whether the vendor accepted it
// or its error (status and message), so a person with a key learns in seconds that a model, a key or a
// proxy does not work. Exit 1 when any check failed.
import { dataRoot } from "../config/files.ts";
import { type LoadedConfig, loadConfig } from "../config/load.ts";
import { formatProblem } from "../config/problems.ts";
import { chooseModel, type ModelChoice, ModelChoiceError, NO_MODEL_HELP } from "../agent/facets/model-choice.ts";
import { catalogProvider } from "../providers/catalog.ts";
import { requestApi, streamOnce } from "../providers/client.ts";
import { deviceTokenSource } from "../providers/device-auth/vendors.ts";
import { ProviderError } from "../providers/errors.ts";
import { useRunningLocalServer, wantsLocalServer } from "../providers/local-detect.ts";
import { catalogModelKey } from "../providers/model-catalog.ts";
import type { ProviderRequest } from "../providers/request.ts";
import { CliError, EXIT, type Io, type ParsedArgs, UsageError } from "../util/cli-command.ts";
import { systemClock } from "../util/clock.ts";
import { redactText } from "../util/redact.ts";

/** What the check asks: the shortest possible answer. */
export const CHECK_PROMPT = "Reply with the single word OK.";
/** A check that has not finished by then is reported as failed (the request is abandoned). */
export const CHECK_TIMEOUT_MS = 60_000;

/**
 * The smallest output limit the request's form accepts: one token, except where the vendor sets a floor —
 * a thinking budget needs max_tokens above the smallest budget (1024, Anthropic's minimum), and the
 * Responses API's max_output_tokens is at least 16 (OpenAI's OpenAPI document).
 */
function minimalOutputTokens(choice: ModelChoice, request: ProviderRequest): number {
  const api = requestApi(choice.provider, request);
  if (request.reasoning?.enabled && api.thinking.form === "budget") return 1025;
  if (choice.provider.dialect === "b_responses") return 16;
  return 1;
}

/** The request a session would send this model for a one-word answer, with the smallest output limit. */
export function checkRequest(choice: ModelChoice): ProviderRequest {
  const request: ProviderRequest = {
    model: choice.model.provider_name,
    system: null,
    messages: [{ role: "user", content: [{ type: "text", text: CHECK_PROMPT }] }],
    tools: [],
    max_output_tokens: 1,
    stop_sequences: [],
    reasoning: choice.reasoning,
    request_options: { ...choice.model.request_option_defaults },
    model_config: { key: choice.model.key, api: choice.model.api },
  };
  return { ...request, max_output_tokens: minimalOutputTokens(choice, request) };
}

export interface CheckRow {
  /** Model key (`<provider>/<id>`), with `(level)` when the level is not the model's default. */
  model: string;
  provider: string;
  /** Model id as sent to the vendor. */
  sent_as: string | null;
  /** Which defaults the model is (`full`, `mini`, `nano`); empty for a provider's own model or the one named. */
  defaults: string[];
  effort: string | null;
  /** true: the vendor accepted the request; false: it refused it or could not be reached; null: not checked. */
  accepted: boolean | null;
  /** HTTP status of a refusal (null when the request did not get one: network, stream error, timeout). */
  status: number | null;
  /** The error kind (`auth`, `invalid_request`, `rate_limited`, `network`, `timeout`, `config`: the provider cannot be called as configured, ...) of a failure. */
  error: string | null;
  /** The vendor's message (keys redacted), or why the model was not checked. */
  message: string | null;
  duration_ms: number | null;
}

interface Target {
  ref: string;
  provider: string;
  defaults: string[];
}

/** The models to check: the named one, else the configured defaults and one model of every provider they leave out. */
function targets(loaded: LoadedConfig, named: string | undefined): { targets: Target[]; unchecked: CheckRow[] } {
  if (named) return { targets: [{ ref: named, provider: "", defaults: [] }], unchecked: [] };
  const byRef = new Map<string, Target>();
  for (const tier of ["full", "mini", "nano"] as const) {
    const c = loaded.defaults[tier];
    const model = c && loaded.models.models.get(c.model);
    if (!c || !model) continue;
    const ref = c.effort && model.reasoning.type === "effort" && c.effort !== model.reasoning.default_level ? `${c.model}(${c.effort})` : c.model;
    const t = byRef.get(ref) ?? { ref, provider: model.provider, defaults: [] };
    t.defaults.push(tier);
    byRef.set(ref, t);
  }
  const unchecked: CheckRow[] = [];
  const covered = new Set([...byRef.values()].map((t) => t.provider));
  for (const [key, settings] of Object.entries(loaded.config.providers ?? {})) {
    if (covered.has(key)) continue;
    const entry = settings.kind.type === "catalog" ? catalogProvider(settings.kind.name) : undefined;
    const row = (message: string): CheckRow => ({ model: "", provider: key, sent_as: null, defaults: [], effort: null, accepted: null, status: null, error: null, message, duration_ms: null });
    if ((settings.protocol ?? entry?.protocol) === "test") {
      unchecked.push(row("the offline demo provider: it sends no request"));
      continue;
    }
    const own = [...loaded.models.models.values()].filter((m) => m.provider === key);
    const catalogDefault = entry?.defaults ? catalogModelKey(entry, key, entry.defaults.full) : null;
    const model = own.find((m) => m.key === catalogDefault) ?? own[0];
    if (model) byRef.set(model.key, { ref: model.key, provider: key, defaults: [] });
    else unchecked.push(row(`no model is configured for it: name one with 'agent models check <provider>/<model id>'`));
  }
  return { targets: [...byRef.values()], unchecked };
}

async function check(loaded: LoadedConfig, target: Target, io: Io): Promise<CheckRow> {
  let choice: ModelChoice;
  try {
    choice = chooseModel(loaded, target.ref);
  } catch (error) {
    // A provider the config cannot call (no url for an Azure resource, ...) fails its own row, not the run.
    if (!(error instanceof ModelChoiceError)) throw error;
    return { model: target.ref, provider: target.provider, sent_as: null, defaults: target.defaults, effort: null, accepted: false, status: null, error: "config", message: error.message, duration_ms: null };
  }
  const row: CheckRow = {
    model: target.ref, provider: choice.model.provider, sent_as: choice.model.provider_name, defaults: target.defaults, effort: choice.effort,
    accepted: false, status: null, error: null, message: null, duration_ms: null,
  };
  const clock = systemClock;
  const started = clock.now();
  const deps = {
    clock,
    trustStore: loaded.trustStore ?? null,
    devices: deviceTokenSource(dataRoot(io.env), { clock, trustStore: loaded.trustStore ?? null }),
    stream: loaded.config.daemon ?? null,
  };
  const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
  try {
    if (choice.provider.protocol === "test") throw new CliError(`'${target.ref}' is the offline demo model: it sends no request`);
    for await (const event of streamOnce(choice.provider, checkRequest(choice), deps, signal)) {
      if (event.type === "done") break;
    }
    row.accepted = true;
  } catch (error) {
    const e = error as Error;
    if (error instanceof ProviderError) {
      row.status = error.status;
      row.error = error.kind === "cancelled" && signal.aborted ? "timeout" : error.kind;
      row.message = error.kind === "cancelled" && signal.aborted ? `no answer within ${CHECK_TIMEOUT_MS / 1000} s` : error.message;
    } else {
      row.error = "error";
      row.message = e.message;
    }
    row.message = redactText(row.message ?? "", loaded.secrets);
  }
  row.duration_ms = clock.now() - started;
  return row;
}

function line(r: CheckRow): string {
  if (r.accepted === null) return `- ${r.provider}: not checked (${r.message})`;
  const roles = r.defaults.length > 0 ? ` (default ${r.defaults.join(", ")})` : "";
  const took = r.duration_ms === null ? "" : `, ${(r.duration_ms / 1000).toFixed(1)} s`;
  if (r.accepted) return `✓ ${r.model}${roles}: accepted${took}`;
  const status = r.status !== null ? `HTTP ${r.status}` : r.error;
  return `✗ ${r.model}${roles}: ${status}${took}\n    ${r.message}`;
}

export async function modelsCheckRun(args: ParsedArgs, io: Io): Promise<number> {
  const json = args.flags.json === true;
  const named = args.positionals[0];
  let loaded = loadConfig({ cwd: io.cwd, env: io.env });
  // Nothing configured and no key: a local server answering on its default port, as a session would use.
  if (wantsLocalServer(loaded) && (await useRunningLocalServer(io.env))) loaded = loadConfig({ cwd: io.cwd, env: io.env });
  if (!loaded.ok) {
    const errors = loaded.problems.filter((p) => p.severity === "error").map(formatProblem);
    throw new CliError(`the config has errors (run \`agent config validate\` for details):\n${errors.join("\n")}`);
  }
  const plan = targets(loaded, named);
  if (plan.targets.length === 0 && plan.unchecked.length === 0) throw new CliError(NO_MODEL_HELP);
  // A named model that does not exist is a usage error, before anything is sent.
  if (named) {
    try {
      chooseModel(loaded, named);
    } catch (error) {
      if (error instanceof ModelChoiceError && error.code === "unknown_model") throw new UsageError(error.message);
      if (!(error instanceof ModelChoiceError)) throw error;
    }
  }
  if (!json) io.err(`checking ${plan.targets.length} model${plan.targets.length === 1 ? "" : "s"}: one request each, the shortest answer …\n`);
  const rows = [...(await Promise.all(plan.targets.map((t) => check(loaded, t, io)))), ...plan.unchecked];
  if (json) io.out(`${JSON.stringify({ models: rows })}\n`);
  else for (const r of rows) io.out(`${line(r)}\n`);
  const failed = rows.some((r) => r.accepted === false);
  return failed || rows.every((r) => r.accepted === null) ? EXIT.failure : EXIT.ok;
}
