// The models of catalog providers: read from the models.dev snapshot shipped in the binary, or from the
// newer copy `agent models refresh` cached under the data root. Read on first use only (a config with no
// catalog provider never parses it), and never from the network.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import type { ModelOverride } from "../config/schema/models.ts";
import { type CatalogProvider, catalogProvider } from "./catalog.ts";
import type { ModelsSnapshot, SnapshotModel } from "./models-dev.ts";
import snapshotFile from "./models-snapshot.json" with { type: "file" };

// A file import gives the path of the embedded file (TypeScript types a .json import as its content).
const snapshotPath = snapshotFile as unknown as string;

/** A catalog model: a complete ModelOverride (every field the engine needs) plus its prices. */
export type CatalogModel = Static<typeof ModelOverride> & {
  provider_name: string;
  class: "full" | "mini" | "nano";
  context_window: number;
  /** USD per million tokens: input, output, cache read, cache write (null when unpublished). */
  cost: { input: number; output: number; cache_read: number | null; cache_write: number | null } | null;
  title: string;
  /** models.dev `interleaved.field`: where its reasoning goes back (read when no model family matches it). */
  interleaved?: "reasoning_content";
};

export interface ModelCatalog {
  /** `builtin`: the snapshot in the binary; `cache`: the copy `agent models refresh` downloaded. */
  origin: "builtin" | "cache";
  path: string;
  date: string;
  source: string;
  revision: string | null;
  /** Models of one catalog entry, converted; [] for entries whose models come from the server. */
  models(entry: CatalogProvider): CatalogModel[];
}

/** Where `agent models refresh` keeps models.dev data: the raw api.json and its compact form. */
export function modelsCacheDir(dataRootDir: string): string {
  return join(dataRootDir, "cache", "models.dev");
}

export const CACHED_SNAPSHOT = "snapshot.json";

/** The test provider's one model keeps its historical key (tests and demo scripts use it). */
const TEST_MODEL: CatalogModel = {
  provider_name: "test-scripted", variant: "other", class: "full", context_window: 128_000, max_tokens: 16_384,
  reasoning: { type: "no_reasoning" }, supports_vision: false, tool_loading: "eager", cost: null, title: "Scripted offline demo",
};

function classOf(entry: CatalogProvider, id: string): CatalogModel["class"] {
  const d = entry.defaults;
  if (d?.full === id) return "full";
  if (d?.mini === id) return "mini";
  if (d?.nano === id) return "nano";
  if (/nano|lite|8b|3b|tiny/i.test(id)) return "nano";
  if (/mini|haiku|flash|small|air|turbo|20b/i.test(id)) return "mini";
  return "full";
}

function variantOf(id: string): CatalogModel["variant"] {
  if (/claude/i.test(id)) return "family_a";
  if (/codex/i.test(id)) return "family_c";
  if (/(^|\/)(gpt-|o\d)/i.test(id)) return "family_b";
  return "other";
}

function reasoningOf(r: SnapshotModel["r"]): CatalogModel["reasoning"] {
  if (r === null) return { type: "no_reasoning" };
  if (r === "thinking") return { type: "thinking", can_disable: true };
  const levels = r.filter((l) => l !== "none");
  const defaultLevel = levels.includes("medium") ? "medium" : levels[Math.floor((levels.length - 1) / 2)]!;
  return { type: "effort", effort_set: "standard", can_disable: r.includes("none"), levels, default_level: defaultLevel };
}

export function toCatalogModel(entry: CatalogProvider, m: SnapshotModel): CatalogModel {
  const variant = variantOf(m.id);
  return {
    provider_name: m.id,
    title: m.name,
    variant,
    class: classOf(entry, m.id),
    context_window: m.ctx,
    ...(m.out ? { max_tokens: m.out } : {}),
    reasoning: reasoningOf(m.r),
    supports_vision: m.vision,
    tool_loading: "eager",
    ...(variant === "family_b" || variant === "family_c" ? { edit_format: "patch" } : {}),
    cost: m.cost ? { input: m.cost[0], output: m.cost[1], cache_read: m.cost[2], cache_write: m.cost[3] } : null,
    ...(m.il ? { interleaved: m.il } : {}),
  };
}

function isSnapshot(value: unknown): value is ModelsSnapshot {
  const v = value as ModelsSnapshot | null;
  return !!v && typeof v === "object" && typeof v.date === "string" && !!v.providers && typeof v.providers === "object";
}

/** Parsed snapshots by path and modification time: a process parses each version of a file once. */
const parsedSnapshots = new Map<string, { mtimeMs: number; snapshot: ModelsSnapshot | null }>();

function readSnapshot(path: string): ModelsSnapshot | null {
  try {
    const mtimeMs = statSync(path).mtimeMs;
    const known = parsedSnapshots.get(path);
    if (known && known.mtimeMs === mtimeMs) return known.snapshot;
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    const snapshot = isSnapshot(parsed) ? parsed : null;
    parsedSnapshots.set(path, { mtimeMs, snapshot });
    return snapshot;
  } catch {
    return null;
  }
}

/**
 * The model catalog: the cached refresh under `dataRootDir` when there is a valid one, else the built-in
 * snapshot. Nothing is read until a field or `models()` is used.
 */
export function modelCatalog(dataRootDir: string | null): ModelCatalog {
  let loaded: { snapshot: ModelsSnapshot; origin: ModelCatalog["origin"]; path: string } | null = null;
  const converted = new Map<string, CatalogModel[]>();
  const load = () => {
    if (loaded) return loaded;
    const cached = dataRootDir ? join(modelsCacheDir(dataRootDir), CACHED_SNAPSHOT) : null;
    const fromCache = cached && existsSync(cached) ? readSnapshot(cached) : null;
    if (fromCache && cached) loaded = { snapshot: fromCache, origin: "cache", path: cached };
    else loaded = { snapshot: readSnapshot(snapshotPath)!, origin: "builtin", path: snapshotPath };
    return loaded;
  };
  return {
    get origin() { return load().origin; },
    get path() { return load().path; },
    get date() { return load().snapshot.date; },
    get source() { return load().snapshot.source; },
    get revision() { return load().snapshot.revision; },
    models(entry) {
      if (entry.protocol === "test") return [TEST_MODEL];
      if (!entry.modelsDev) return [];
      let list = converted.get(entry.name);
      if (!list) {
        const raw = load().snapshot.providers[entry.modelsDev] ?? [];
        list = raw.filter((m) => !entry.modelFilter || entry.modelFilter.test(m.id)).map((m) => toCatalogModel(entry, m));
        converted.set(entry.name, list);
      }
      return list;
    },
  };
}

/** The key a catalog model is selected by: `<provider key>/<model id>` (the test model keeps its own name). */
export function catalogModelKey(entry: CatalogProvider, providerKey: string, modelId: string): string {
  return entry.protocol === "test" ? modelId : `${providerKey}/${modelId}`;
}

/**
 * Model names of the letter catalog (`a-large`, `b-mini`, ...), kept as aliases of the real vendor's
 * model of the same size class so configs written against them stay valid.
 */
export const LEGACY_MODEL_ALIASES: Readonly<Record<string, { provider: string; tier: "full" | "mini" | "nano" }>> = {
  "a-large": { provider: "anthropic", tier: "full" },
  "a-medium": { provider: "anthropic", tier: "mini" },
  "a-small": { provider: "anthropic", tier: "nano" },
  "b-large": { provider: "openai", tier: "full" },
  "b-mini": { provider: "openai", tier: "mini" },
  "b-nano": { provider: "openai", tier: "nano" },
  "c-codex": { provider: "chatgpt", tier: "full" },
  "c-codex-mini": { provider: "chatgpt", tier: "mini" },
};

/** The model id a legacy alias stands for (null when the name is not one). */
export function legacyAliasTarget(name: string): { entry: CatalogProvider; id: string } | null {
  if (!Object.hasOwn(LEGACY_MODEL_ALIASES, name)) return null;
  const alias = LEGACY_MODEL_ALIASES[name]!;
  const entry = catalogProvider(alias.provider)!;
  const d = entry.defaults!;
  const id = alias.tier === "full" ? d.full : alias.tier === "mini" ? (d.mini ?? d.full) : (d.nano ?? d.mini ?? d.full);
  return { entry, id };
}
