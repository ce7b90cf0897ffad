// What a session cost: each assistant message's usage priced at its model's models.dev rates (USD per
// million tokens). Cache reads and writes are priced at their own rates when the model has them, else
// as plain input. A model without a price (local servers, custom models) is counted, not guessed.
import type { LoadedConfig } from "../config/load.ts";
import { dataRoot } from "../config/files.ts";
import { catalogProvider } from "./catalog.ts";
import type { Usage } from "./events.ts";
import { type CatalogModel, modelCatalog } from "./model-catalog.ts";

export type Price = NonNullable<CatalogModel["cost"]>;

export function usageCostUsd(u: Usage, p: Price): number {
  const plain = Math.max(0, u.input_tokens - u.cache_read_tokens - u.cache_write_tokens);
  const tokens = plain * p.input + u.cache_read_tokens * (p.cache_read ?? p.input) + u.cache_write_tokens * (p.cache_write ?? p.input) + u.output_tokens * p.output;
  return tokens / 1_000_000;
}

/** The models.dev price of a configured model key: its provider must be a catalog provider. */
export function modelPrice(loaded: Pick<LoadedConfig, "models" | "config">, modelKey: string, env: Record<string, string | undefined>): Price | null {
  const model = loaded.models.models.get(modelKey);
  const settings = model ? loaded.config.providers?.[model.provider] : undefined;
  if (!model || settings?.kind.type !== "catalog") return null;
  const entry = catalogProvider(settings.kind.name);
  if (!entry) return null;
  return modelCatalog(dataRoot(env)).models(entry).find((m) => m.provider_name === model.provider_name)?.cost ?? null;
}

/** Prices one message's usage by model key (prices looked up once per model); null: no known price. */
export function messageCost(loaded: Pick<LoadedConfig, "models" | "config">, env: Record<string, string | undefined>): (modelKey: string, u: Usage) => number | null {
  const prices = new Map<string, Price | null>();
  return (modelKey, u) => {
    if (!prices.has(modelKey)) prices.set(modelKey, modelPrice(loaded, modelKey, env));
    const p = prices.get(modelKey)!;
    return p ? Math.round(usageCostUsd(u, p) * 1e9) / 1e9 : null;
  };
}

export interface SessionCost {
  /** Sum over the priced messages; null when none had a price. */
  usd: number | null;
  priced_messages: number;
  /** Messages of models with no known price (left out of `usd`). */
  unpriced_messages: number;
}

/** Adds up assistant messages ({model, usage}) with `priceOf` (memoised per model). */
export function sessionCost(messages: { model: string; usage: Usage | null }[], priceOf: (model: string) => Price | null): SessionCost {
  const prices = new Map<string, Price | null>();
  let usd = 0;
  let priced = 0;
  let unpriced = 0;
  for (const m of messages) {
    if (!m.usage) continue;
    if (!prices.has(m.model)) prices.set(m.model, priceOf(m.model));
    const p = prices.get(m.model)!;
    if (p) {
      usd += usageCostUsd(m.usage, p);
      priced++;
    } else unpriced++;
  }
  return { usd: priced > 0 ? Math.round(usd * 1e6) / 1e6 : null, priced_messages: priced, unpriced_messages: unpriced };
}
