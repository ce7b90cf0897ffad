// Regenerates src/providers/models-snapshot.json, the model catalog shipped inside the binary, from
// models.dev data (https://models.dev; source github.com/anomalyco/models.dev, MIT licence).
//
//   bun scripts/models-snapshot.ts --api https://models.dev/api.json     # the published api.json
//   bun scripts/models-snapshot.ts --api ./api.json
//   bun scripts/models-snapshot.ts --repo ../models.dev [--revision SHA] # a checkout of the repository
//
// Only the providers of our catalog (src/providers/catalog.ts) are kept, and of each model only what the
// agent reads (window, output limit, reasoning levels, vision, prices). `--date` sets the snapshot date
// (default: the revision's commit date with --repo, today with --api).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { parse as parseToml } from "smol-toml";
import { CATALOG_PROVIDERS } from "../src/providers/catalog.ts";
import { compactCatalog, isModelsDevApi, type ModelsDevModel, type ModelsDevProvider } from "../src/providers/models-dev.ts";

const OUT = resolve(import.meta.dir, "../src/providers/models-snapshot.json");

type Doc = Record<string, unknown>;
const isPlain = (v: unknown): v is Doc => !!v && typeof v === "object" && !Array.isArray(v);

/** models.dev's merge of a provider model over its `base_model` metadata (remeda mergeDeep: objects merge, arrays replace). */
function mergeDeep(base: Doc, over: Doc): Doc {
  const out: Doc = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isPlain(v) && isPlain(out[k]) ? mergeDeep(out[k] as Doc, v) : v;
  return out;
}

function omit(target: Doc, paths: string[]): void {
  for (const path of paths) {
    const parts = path.split(".");
    let cur: unknown = target;
    for (const part of parts.slice(0, -1)) cur = isPlain(cur) ? cur[part] : undefined;
    if (isPlain(cur)) delete cur[parts.at(-1)!];
  }
}

function tomlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...tomlFiles(path));
    else if (name.endsWith(".toml")) out.push(path);
  }
  return out;
}

const idOf = (root: string, file: string) => relative(root, file).split(sep).join("/").slice(0, -".toml".length);

/** Reads the repository's TOML files as models.dev's own generator does (base_model merge, base_model_omit). */
function readRepo(repo: string, providerIds: string[]): Record<string, ModelsDevProvider> {
  const metaRoot = join(repo, "models");
  const meta = new Map<string, Doc>();
  for (const file of tomlFiles(metaRoot)) {
    const { id: _i, benchmarks: _b, license: _l, links: _k, weights: _w, ...rest } = parseToml(readFileSync(file, "utf8")) as Doc;
    meta.set(idOf(metaRoot, file), rest);
  }
  const api: Record<string, ModelsDevProvider> = {};
  for (const pid of providerIds) {
    const root = join(repo, "providers", pid, "models");
    if (!existsSync(join(repo, "providers", pid, "provider.toml"))) throw new Error(`models.dev has no provider '${pid}'`);
    const models: Record<string, ModelsDevModel> = {};
    for (const file of tomlFiles(root)) {
      const id = idOf(root, file);
      let doc = parseToml(readFileSync(file, "utf8")) as Doc;
      if (typeof doc.base_model === "string") {
        const base = meta.get(doc.base_model);
        if (!base) throw new Error(`${file}: unknown base_model ${doc.base_model}`);
        const { base_model: _m, base_model_omit: drop, ...over } = doc;
        doc = structuredClone(mergeDeep(base, over));
        omit(doc, (drop as string[] | undefined) ?? []);
      }
      models[id] = { ...(doc as unknown as ModelsDevModel), id };
    }
    api[pid] = { id: pid, models };
  }
  return api;
}

async function readApi(source: string): Promise<unknown> {
  if (/^https?:\/\//.test(source)) {
    const response = await fetch(source);
    if (!response.ok) throw new Error(`${source}: HTTP ${response.status}`);
    return response.json();
  }
  return JSON.parse(readFileSync(source, "utf8"));
}

function gitCommitDate(repo: string, revision: string | undefined): string | null {
  const result = Bun.spawnSync(["git", "-C", repo, "log", "-1", "--format=%cs", revision ?? "HEAD"], { stderr: "ignore" });
  return result.exitCode === 0 ? result.stdout.toString().trim() || null : null;
}

const { values } = parseArgs({
  options: { api: { type: "string" }, repo: { type: "string" }, revision: { type: "string" }, date: { type: "string" }, out: { type: "string" } },
});
if (!values.api === !values.repo) {
  console.error("usage: bun scripts/models-snapshot.ts (--api URL|FILE | --repo DIR [--revision SHA]) [--date YYYY-MM-DD] [--out FILE]");
  process.exit(2);
}
const providerIds = [...new Set(CATALOG_PROVIDERS.map((p) => p.modelsDev).filter((id): id is string => id !== null))];
let api: Record<string, ModelsDevProvider>;
let date = values.date ?? new Date().toISOString().slice(0, 10);
if (values.repo) {
  api = readRepo(resolve(values.repo), providerIds);
  date = values.date ?? gitCommitDate(values.repo, values.revision) ?? date;
} else {
  const data = await readApi(values.api!);
  if (!isModelsDevApi(data)) throw new Error(`${values.api} does not look like models.dev's api.json`);
  api = data;
}
const snapshot = compactCatalog(api, providerIds, date, values.revision ?? null);
for (const entry of CATALOG_PROVIDERS) {
  if (!entry.modelsDev || !entry.defaults) continue;
  const ids = new Set(snapshot.providers[entry.modelsDev]!.map((m) => m.id));
  for (const [tier, id] of Object.entries(entry.defaults)) if (!ids.has(id)) console.error(`warning: ${entry.name}: default ${tier} model '${id}' is not in the data`);
}
const out = values.out ? resolve(values.out) : OUT;
writeFileSync(out, `${JSON.stringify(snapshot)}\n`);
const count = Object.values(snapshot.providers).reduce((n, list) => n + list.length, 0);
console.log(`${out}: ${count} models of ${providerIds.length} providers, data of ${date}`);
