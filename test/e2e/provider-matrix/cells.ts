// The cells of the provider matrix (issue 33 item 4), derived from the catalog so a new provider or a
// new default model gets cells without anyone writing them: for every catalog provider, its default full
// and mini models with reasoning at the model's default level and at its highest level (one cell when
// the two are the same or the model has no levels), running the tool task; plus, per provider, its
// first default model that reads images running the image task. Local servers have no default model in
// the catalog (theirs is the first their /models lists): each gets one cell with a served model.
import { type CatalogProvider, CATALOG_PROVIDERS } from "../../../src/providers/catalog.ts";
import { describeModel } from "../../../src/providers/families/resolve.ts";
import type { ToolResultImages } from "../../../src/providers/families/types.ts";
import { type CatalogModel, catalogModelKey, modelCatalog } from "../../../src/providers/model-catalog.ts";
import { PROTOCOL_INFO } from "../../../src/providers/protocols.ts";
import { resolveEditFormat } from "../../../src/tools/edit.ts";

/**
 * Catalog providers that have no cell, each with the reason. `test` is the offline demo: its requests
 * never leave the process (a scripted in-process server), there is no vendor whose rules could refuse them.
 */
export const NOT_IN_MATRIX: Readonly<Record<string, string>> = {
  test: "the offline demo provider: scripted in-process answers, no vendor API to be accepted by",
};

/** The model a local server's fake lists first: what such a server runs on when nothing else is configured. */
export const SERVED_MODEL = "qwen3-coder-30b";
/** The window the config gives the served model (Ollama's /v1/models reports none; 32768 is agent's default then). */
export const SERVED_CONTEXT_WINDOW = 32768;

export type MatrixTask = "tools" | "image";

export interface MatrixCell {
  /** File name stem of the cell's fixture: `<provider>-<model>-<level>` (`/` and `:` of ids as `_`), `-image` for the image task. */
  id: string;
  provider: CatalogProvider;
  /** Which default the model is: the catalog's full or mini, or the model a local server serves. */
  role: "full" | "mini" | "served";
  /** Model id sent to the vendor. */
  model: string;
  /** Model key as agent selects it (`<provider key>/<id>`; the provider key is the catalog name). */
  key: string;
  /** Effort level name; `thinking` for models that think without levels; `none` for models that do not reason. */
  level: string;
  /** `--model` value; null: none, the config's defaults choose (the catalog's full model at its default level). */
  modelArg: string | null;
  task: MatrixTask;
  /** The edit tool's format for this model (`replace`: old/new strings, `patch`: an apply-patch envelope). */
  editFormat: "replace" | "patch" | "hashline";
  /** Whether the model streams reasoning back (thinking or effort reasoning). */
  reasons: boolean;
  /**
   * How images from tools reach the model, as its family describes it (src/providers/families): the image
   * task expects the PNG in the request, or (`none`) the note that it was left out.
   */
  toolImages: ToolResultImages;
}

const slug = (s: string) => s.replace(/[/:]/g, "_");

/** The model's default level, then its highest (models.dev lists levels in increasing order) when it differs. */
function levelsOf(m: Pick<CatalogModel, "reasoning">): { level: string; isDefault: boolean }[] {
  const r = m.reasoning;
  if (!r || r.type === "no_reasoning") return [{ level: "none", isDefault: true }];
  if (r.type === "thinking") return [{ level: "thinking", isDefault: true }];
  const def = r.default_level ?? r.levels[0]!;
  const top = r.levels[r.levels.length - 1]!;
  return def === top ? [{ level: def, isDefault: true }] : [{ level: def, isDefault: true }, { level: top, isDefault: false }];
}

const imagesOf = (entry: CatalogProvider, model: string) => describeModel(PROTOCOL_INFO[entry.protocol].baseDialect, model).toolResultImages;

function cellsOfProvider(entry: CatalogProvider): MatrixCell[] {
  if (!entry.defaults) {
    return [{
      id: `${entry.name}-${slug(SERVED_MODEL)}-none`, provider: entry, role: "served", model: SERVED_MODEL, key: `${entry.name}/${SERVED_MODEL}`, level: "none",
      modelArg: null, task: "tools", editFormat: "replace", reasons: false, toolImages: imagesOf(entry, SERVED_MODEL),
    }];
  }
  const cells: MatrixCell[] = [];
  const models = modelCatalog(null).models(entry);
  const seen = new Set<string>();
  let image: MatrixCell | null = null;
  for (const role of ["full", "mini"] as const) {
    const id = entry.defaults[role];
    if (!id || seen.has(id)) continue;
    seen.add(id);
    const m = models.find((x) => x.provider_name === id);
    if (!m) throw new Error(`catalog provider '${entry.name}': default ${role} model '${id}' is not in the models.dev snapshot`);
    const key = catalogModelKey(entry, entry.name, id);
    const editFormat = resolveEditFormat(m.edit_format ?? null).format;
    const toolImages = imagesOf(entry, id);
    for (const l of levelsOf(m)) {
      // The full model at its default level runs with no --model: the config's defaults pick it (issue 33 finding 6).
      const modelArg = role === "full" && l.isDefault ? null : l.isDefault ? key : `${key}(${l.level})`;
      cells.push({ id: `${entry.name}-${slug(id)}-${l.level}`, provider: entry, role, model: id, key, level: l.level, modelArg, task: "tools", editFormat, reasons: l.level !== "none", toolImages });
    }
    if (!image && m.supports_vision) {
      const l = levelsOf(m)[0]!;
      image = { id: `${entry.name}-${slug(id)}-${l.level}-image`, provider: entry, role, model: id, key, level: l.level, modelArg: key, task: "image", editFormat, reasons: l.level !== "none", toolImages };
    }
  }
  return image ? [...cells, image] : cells;
}

/** Every cell of the matrix, in catalog order. */
export function matrixCells(): MatrixCell[] {
  return CATALOG_PROVIDERS.filter((e) => !Object.hasOwn(NOT_IN_MATRIX, e.name)).flatMap(cellsOfProvider);
}

/**
 * The matrix is split over several test files (each file's cells run in one pool); a cell's file is
 * chosen by its provider's position in the catalog, so a provider's cells stay together and a new
 * provider lands in a file without editing any.
 */
export const MATRIX_FILES = 6;

export function cellsOfFile(index: number): MatrixCell[] {
  const names = CATALOG_PROVIDERS.filter((e) => !Object.hasOwn(NOT_IN_MATRIX, e.name)).map((e) => e.name);
  return matrixCells().filter((c) => names.indexOf(c.provider.name) % MATRIX_FILES === index);
}
