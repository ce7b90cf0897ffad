// A local inference server answering on its default port (Ollama 11434, LM Studio 1234, vLLM 8000,
// llama.cpp 8080) is found at start when neither a key nor a config names a provider: one bounded
// probe of each catalog entry's `/models` on loopback only, all at once, abandoned after `budgetMs`.
// The result travels to the session daemon in one environment variable, so the daemon's config load
// (providersFromEnv) sees the same provider and model without probing again.
import { CATALOG_PROVIDERS, type CatalogProvider } from "./catalog.ts";
import type { FetchLike } from "./http.ts";
import { USER_AGENT } from "./user-agent.ts";

/** Set by `agent` / `agent exec` for the daemon they start; JSON of DetectedLocalServer. */
export const DETECTED_LOCAL_VAR = "AGENT_DETECTED_LOCAL_SERVER";
/** Abandon the probe after this long: a start is never delayed by more. */
export const LOCAL_PROBE_BUDGET_MS = 40;
/** Window used when the server does not report one (Ollama's /v1/models does not). */
export const LOCAL_DEFAULT_CONTEXT_WINDOW = 32768;

export interface DetectedLocalServer {
  name: string;
  title: string;
  url: string;
  models: { id: string; context_window: number | null }[];
}

type Env = Record<string, string | undefined>;

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/i;

/** The local entries and the address each would be probed at (its base-URL variable moves it). */
export function localCandidates(env: Env): { entry: CatalogProvider; url: string }[] {
  return CATALOG_PROVIDERS.filter((e) => e.auth === "none" && e.protocol !== "test" && e.url).flatMap((entry) => {
    const url = ((entry.baseUrlEnv && env[entry.baseUrlEnv]?.trim()) || entry.url!).replace(/\/+$/, "");
    try {
      return LOOPBACK.test(new URL(url).hostname) ? [{ entry, url }] : [];
    } catch {
      return [];
    }
  });
}

const positive = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : null);

/** Window as each server family reports it: vLLM `max_model_len`, llama.cpp `meta.n_ctx_train`, LM Studio / others `context_length`. */
function windowOf(m: any): number | null {
  return positive(m?.max_model_len) ?? positive(m?.context_length) ?? positive(m?.context_window) ?? positive(m?.meta?.n_ctx_train) ?? null;
}

async function probe(url: string, doFetch: FetchLike, signal: AbortSignal): Promise<DetectedLocalServer["models"] | null> {
  try {
    const res = await doFetch(`${url}/models`, { method: "GET", headers: { accept: "application/json", "user-agent": USER_AGENT }, redirect: "manual", signal });
    if (res.status !== 200) return null;
    const body = (await res.json()) as any;
    if (!Array.isArray(body?.data)) return null;
    const models = body.data
      .filter((m: any) => typeof m?.id === "string" && m.id.length > 0 && m.id.length <= 256)
      .map((m: any) => ({ id: m.id as string, context_window: windowOf(m) }));
    return models.length > 0 ? models : null;
  } catch {
    return null;
  }
}

/**
 * The first local server (in catalog order) that answers with at least one model, or null. Never
 * takes longer than `budgetMs`: a port nobody listens on is refused at once, a slow one is abandoned.
 */
export async function detectLocalServer(env: Env, opts: { budgetMs?: number; fetch?: FetchLike } = {}): Promise<DetectedLocalServer | null> {
  const candidates = localCandidates(env);
  if (candidates.length === 0) return null;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.budgetMs ?? LOCAL_PROBE_BUDGET_MS);
  const doFetch: FetchLike = opts.fetch ?? ((input, init) => fetch(input, init as RequestInit));
  try {
    const results = await Promise.all(candidates.map((c) => probe(c.url, doFetch, abort.signal)));
    const i = results.findIndex((r) => r !== null);
    if (i < 0) return null;
    const { entry, url } = candidates[i]!;
    return { name: entry.name, title: entry.title, url, models: results[i]! };
  } finally {
    clearTimeout(timer);
  }
}

/** Reads what the starting command found (DETECTED_LOCAL_VAR); null when unset or not ours. */
export function detectedFromEnv(env: Env): DetectedLocalServer | null {
  const raw = env[DETECTED_LOCAL_VAR];
  if (!raw) return null;
  try {
    const d = JSON.parse(raw) as DetectedLocalServer;
    const entry = CATALOG_PROVIDERS.find((e) => e.name === d?.name && e.auth === "none");
    if (!entry || typeof d.url !== "string" || !LOOPBACK.test(new URL(d.url).hostname) || !Array.isArray(d.models) || d.models.length === 0) return null;
    if (!d.models.every((m) => typeof m?.id === "string")) return null;
    return d;
  } catch {
    return null;
  }
}

/**
 * At the start of a session with no provider in any config file and no key: the local server found
 * running, recorded in `env` (the caller's, passed on to the daemon it starts) so a later config load
 * configures it. Probes once per process environment.
 */
export async function useRunningLocalServer(env: Env, opts: { budgetMs?: number; fetch?: FetchLike } = {}): Promise<DetectedLocalServer | null> {
  if (env[DETECTED_LOCAL_VAR]) return detectedFromEnv(env);
  const found = await detectLocalServer(env, opts);
  if (found) env[DETECTED_LOCAL_VAR] = JSON.stringify(found);
  return found;
}

/** Whether a loaded config leaves the start to a local server: no provider in any file or key variable. */
export function wantsLocalServer(loaded: { ok: boolean; config: { providers?: Record<string, unknown> | null }; defaults: { full?: unknown } }): boolean {
  return loaded.ok && !loaded.defaults.full && Object.keys(loaded.config.providers ?? {}).length === 0;
}
