// `agent models check` against every catalog provider's strict fake (issue 33 item 6): the minimal request
// (one-word prompt, the smallest output limit the request's form accepts, the default thinking form and
// effort) must be one each vendor accepts, for each of its default models; otherwise the check would
// report a working key as broken. Providers come from the provider matrix's cells (the catalog).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { type MatrixCell, matrixCells } from "./provider-matrix/cells.ts";
import { cellProject, MATRIX_KEY, runAgent } from "./provider-matrix/run-cell.ts";
import { startVendorFake } from "./provider-matrix/vendor-fake.ts";

/** One cell per provider: its configuration is the provider's, whatever the cell's model. */
const providers = [...new Map(matrixCells().map((c) => [c.provider.name, c] as const)).values()];
const bases: string[] = [];

/** The models the check sends a request for when this provider alone is configured: its distinct defaults. */
function expectedModels(cell: MatrixCell): string[] {
  const d = cell.provider.defaults;
  if (!d) return [cell.key];
  return [...new Set([d.full, d.mini ?? d.full, d.nano ?? d.mini ?? d.full])].map((id) => `${cell.provider.name}/${id}`);
}

beforeAll(() => ensureBinary(), 240_000);
afterAll(() => {
  for (const b of bases) rmSync(b, { recursive: true, force: true });
});

describe("agent models check is accepted by every vendor", () => {
  for (const cell of providers) {
    test(cell.provider.name, async () => {
      const wanted = expectedModels(cell);
      const fake = startVendorFake(cell, wanted.map(() => ({ text: "OK", usage: { input: 12, output: 1 } })));
      try {
        const p = cellProject(cell, fake.origin);
        bases.push(p.base);
        const r = await runAgent(BINARY, ["models", "check", "--json"], p);
        expect(fake.violations).toEqual([]);
        const rows = JSON.parse(r.stdout).models as { model: string; accepted: boolean; message: string | null }[];
        expect(rows.map((row) => [row.model, row.accepted, row.message])).toEqual(wanted.map((m) => [m, true, null]));
        expect(r.code).toBe(0);
        expect(fake.requests).toHaveLength(wanted.length);
        expect(r.stdout + r.stderr).not.toContain(MATRIX_KEY);
      } finally {
        await fake.stop();
      }
    });
  }
});
