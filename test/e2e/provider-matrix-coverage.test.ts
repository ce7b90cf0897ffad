// The provider matrix covers the catalog (issue 33 item 4): every catalog provider has cells (or a stated
// reason why not), every default full and mini model runs at its default and its highest reasoning level,
// every provider with a vision default reads an image, every cell belongs to one test file that exists,
// and the fixtures on disk are exactly the cells' (a new provider or default fails here until it has its
// cells' fixtures; a removed one leaves no stale file).
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CATALOG_PROVIDERS } from "../../src/providers/catalog.ts";
import { modelCatalog } from "../../src/providers/model-catalog.ts";
import { AWAITING_FIX } from "./provider-matrix/awaiting.ts";
import { cellsOfFile, MATRIX_FILES, matrixCells, NOT_IN_MATRIX } from "./provider-matrix/cells.ts";
import { fixtureIds } from "./provider-matrix/fixtures.ts";

const cells = matrixCells();

describe("provider matrix coverage", () => {
  test("every catalog provider has cells, or a reason in NOT_IN_MATRIX", () => {
    for (const name of Object.keys(NOT_IN_MATRIX)) expect(CATALOG_PROVIDERS.map((p) => p.name)).toContain(name);
    const uncovered = CATALOG_PROVIDERS.filter((p) => !Object.hasOwn(NOT_IN_MATRIX, p.name) && !cells.some((c) => c.provider.name === p.name)).map((p) => p.name);
    expect(uncovered).toEqual([]);
    expect(CATALOG_PROVIDERS.length - Object.keys(NOT_IN_MATRIX).length).toBe(new Set(cells.map((c) => c.provider.name)).size);
  });

  test("each default full and mini model runs the tool task at its default and its highest level", () => {
    const catalog = modelCatalog(null);
    for (const p of CATALOG_PROVIDERS) {
      if (Object.hasOwn(NOT_IN_MATRIX, p.name) || !p.defaults) continue;
      for (const id of [p.defaults.full, p.defaults.mini].filter((x): x is string => !!x)) {
        const m = catalog.models(p).find((x) => x.provider_name === id)!;
        const r = m.reasoning!;
        const wanted = r.type === "effort" ? [...new Set([r.default_level!, r.levels.at(-1)!])] : [r.type === "thinking" ? "thinking" : "none"];
        const have = cells.filter((c) => c.provider === p && c.model === id && c.task === "tools").map((c) => c.level);
        expect({ provider: p.name, model: id, levels: have.sort() }).toEqual({ provider: p.name, model: id, levels: wanted.sort() });
      }
      const vision = [p.defaults.full, p.defaults.mini].some((id) => id && catalog.models(p).find((x) => x.provider_name === id)?.supports_vision);
      expect({ provider: p.name, image: cells.some((c) => c.provider === p && c.task === "image") }).toEqual({ provider: p.name, image: vision });
    }
  });

  test("the full model at its default level runs without --model: the config's catalog provider picks it", () => {
    for (const p of new Set(cells.map((c) => c.provider))) {
      expect(cells.filter((c) => c.provider === p && c.task === "tools" && c.modelArg === null).length).toBe(1);
    }
  });

  test("every cell is in exactly one test file, and each file exists", () => {
    const split = Array.from({ length: MATRIX_FILES }, (_, i) => cellsOfFile(i).map((c) => c.id));
    expect(split.flat().sort()).toEqual(cells.map((c) => c.id).sort());
    expect(new Set(split.flat()).size).toBe(cells.length);
    for (let i = 1; i <= MATRIX_FILES; i++) expect(existsSync(join(import.meta.dir, `provider-matrix-${i}.test.ts`))).toBe(true);
  });

  test("the fixtures on disk are exactly those of the cells", () => {
    const ids = cells.map((c) => c.id).sort();
    expect(new Set(ids).size).toBe(ids.length);
    const stored = fixtureIds();
    // A cell waiting for a product fix has no fixture until its requests are accepted.
    const running = cells.filter((c) => !AWAITING_FIX[c.id]);
    expect(stored.cells).toEqual(running.map((c) => c.id).sort());
    expect(stored.tools).toEqual([...new Set(running.map((c) => `${c.provider.name}-${c.editFormat}`))].sort());
    for (const id of Object.keys(AWAITING_FIX)) expect(ids).toContain(id);
  });
});
