// Model discovery: lists the models a provider reports at its models endpoint (the same base as its
// requests). `applyDiscoveredModels` (discovered-models.ts) then applies the pending `models.<key>` overlays.
import type { Clock } from "../util/clock.ts";
import { mergeHeaders, resolveAuth, type DeviceTokenSource } from "./auth-headers.ts";
import { ProviderError } from "./errors.ts";
import { type FetchLike, errorFromResponse } from "./http.ts";
import type { ResolvedProvider } from "./resolve.ts";
import { type TrustStore, fetchTlsOptions } from "./tls.ts";
import { USER_AGENT } from "./user-agent.ts";

export interface DiscoveredModel {
  id: string;
  display_name: string | null;
  /** Context window when the provider reports one (`context_window`, `context_length` or `max_input_tokens`). */
  context_window: number | null;
  max_output_tokens: number | null;
}

const MAX_PAGES = 20;

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : null);

export async function listProviderModels(
  provider: ResolvedProvider,
  deps: { clock: Clock; fetch?: FetchLike; trustStore?: TrustStore | null; devices?: DeviceTokenSource | null },
  signal?: AbortSignal,
): Promise<DiscoveredModel[]> {
  if (!provider.modelsUrl) return [];
  const auth = await resolveAuth(provider.settings.auth, provider.authFormat, deps.devices ?? null);
  const headers = mergeHeaders({ "user-agent": USER_AGENT }, provider.headers, { accept: "application/json" }, auth.headers);
  const doFetch: FetchLike = deps.fetch ?? ((input, init) => fetch(input, init as RequestInit));
  const tls = fetchTlsOptions(deps.trustStore ?? null);
  const out: DiscoveredModel[] = [];
  let after: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const url = new URL(provider.modelsUrl);
    if (after) url.searchParams.set("after_id", after);
    let res: Response;
    try {
      res = await doFetch(url.href, { method: "GET", headers, signal, ...(tls ? { tls } : {}) });
    } catch (error) {
      throw new ProviderError({ kind: "network", code: "connection_failed", message: `could not list models at ${url.origin}: ${(error as Error).message}`, secrets: auth.secrets });
    }
    if (!res.ok) throw await errorFromResponse(res, deps.clock.now(), auth.secrets);
    let body: any;
    try {
      body = await res.json();
    } catch {
      throw new ProviderError({ kind: "protocol", code: "invalid_json", message: "models endpoint returned invalid JSON" });
    }
    const list = Array.isArray(body?.data) ? body.data : Array.isArray(body?.models) ? body.models : null;
    if (!list) throw new ProviderError({ kind: "protocol", code: "invalid_models_list", message: "models endpoint returned no `data` list" });
    for (const m of list) {
      if (typeof m?.id !== "string" || m.id.length === 0) continue;
      out.push({
        id: m.id,
        display_name: typeof m.display_name === "string" ? m.display_name : typeof m.name === "string" ? m.name : null,
        context_window: num(m.context_window) ?? num(m.context_length) ?? num(m.max_input_tokens),
        max_output_tokens: num(m.max_output_tokens) ?? num(m.max_tokens) ?? num(m.top_provider?.max_completion_tokens),
      });
    }
    if (body.has_more === true && typeof body.last_id === "string") after = body.last_id;
    else break;
  }
  return out;
}
