// models.dev data (https://models.dev, source: github.com/anomalyco/models.dev, MIT licence) turned into
// the compact snapshot the binary ships (src/providers/models-snapshot.json) and the cache that
// `agent models refresh` writes. One compaction for both, so a refreshed cache reads like the snapshot.

/** One model of one provider, as models.dev's api.json publishes it (only the fields we read). */
export interface ModelsDevModel {
  id: string;
  name?: string;
  reasoning?: boolean;
  reasoning_options?: Array<{ type: string; values?: Array<string | null> }>;
  tool_call?: boolean;
  attachment?: boolean;
  modalities?: { input?: string[]; output?: string[] };
  limit?: { context?: number; output?: number };
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
  release_date?: string;
  status?: string;
  /** Whether (and in which message field) the model's reasoning goes back with the conversation. */
  interleaved?: boolean | { field?: string };
}

export interface ModelsDevProvider {
  id?: string;
  name?: string;
  models?: Record<string, ModelsDevModel>;
}

/**
 * A snapshot model. `r`: null = no reasoning; "thinking" = on/off or a token budget; an array = the
 * effort levels in provider order ("none" among them means reasoning can be turned off).
 * `cost`: USD per million tokens [input, output, cache read, cache write]; absent when unpublished.
 */
export interface SnapshotModel {
  id: string;
  name: string;
  ctx: number;
  out: number | null;
  r: null | "thinking" | string[];
  vision: boolean;
  cost?: [number, number, number | null, number | null];
  date?: string;
  /** models.dev `interleaved.field`: the assistant-message field its reasoning is sent back in. */
  il?: "reasoning_content";
}

export interface ModelsSnapshot {
  source: string;
  /** Date of the data (the models.dev commit or download), YYYY-MM-DD. */
  date: string;
  /** models.dev commit the snapshot was made from, when known. */
  revision: string | null;
  providers: Record<string, SnapshotModel[]>;
}

export const MODELS_DEV_SOURCE = "models.dev (https://models.dev, github.com/anomalyco/models.dev, MIT licence)";
export const MODELS_DEV_API_URL = "https://models.dev/api.json";

function reasoningOf(m: ModelsDevModel): SnapshotModel["r"] {
  if (!m.reasoning) return null;
  const effort = m.reasoning_options?.find((o) => o.type === "effort");
  if (effort?.values?.length) {
    const levels = effort.values.map((v) => (v === null ? "none" : v)).filter((v) => v !== "default");
    if (levels.some((v) => v !== "none")) return [...new Set(levels)];
  }
  return "thinking";
}

/** Keeps what a coding agent can use: text out, tool calls, a known context window, not deprecated. */
export function compactModel(m: ModelsDevModel): SnapshotModel | null {
  const ctx = m.limit?.context;
  if (!m.tool_call || !ctx || m.status === "deprecated") return null;
  if (m.modalities?.output && !m.modalities.output.includes("text")) return null;
  const c = m.cost;
  const out: SnapshotModel = {
    id: m.id,
    name: m.name ?? m.id,
    ctx,
    out: m.limit?.output || null,
    r: reasoningOf(m),
    vision: m.modalities?.input?.includes("image") ?? m.attachment === true,
  };
  if (c && typeof c.input === "number" && typeof c.output === "number") out.cost = [c.input, c.output, c.cache_read ?? null, c.cache_write ?? null];
  if (m.release_date) out.date = m.release_date;
  // Only the field Chat Completions requests can carry back (reasoning_details is OpenRouter's own).
  if (typeof m.interleaved === "object" && m.interleaved.field === "reasoning_content") out.il = "reasoning_content";
  return out;
}

/** api.json (provider id -> provider) to a snapshot of the given models.dev provider ids. */
export function compactCatalog(api: Record<string, ModelsDevProvider>, providerIds: readonly string[], date: string, revision: string | null): ModelsSnapshot {
  const providers: Record<string, SnapshotModel[]> = {};
  for (const id of [...new Set(providerIds)].sort()) {
    const models = Object.entries(api[id]?.models ?? {}).map(([key, m]) => compactModel({ ...m, id: m.id ?? key }));
    providers[id] = models.filter((m): m is SnapshotModel => m !== null).sort((a, b) => a.id.localeCompare(b.id));
  }
  return { source: MODELS_DEV_SOURCE, date, revision, providers };
}

/** Checks the shape of a downloaded api.json before it replaces anything. */
export function isModelsDevApi(value: unknown): value is Record<string, ModelsDevProvider> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const entries = Object.values(value as Record<string, unknown>);
  return entries.length > 0 && entries.every((p) => !!p && typeof p === "object" && typeof (p as ModelsDevProvider).models === "object");
}
