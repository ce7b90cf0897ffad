// Each facet's colors as the daemon catalog lists them (`facets[].colors: {light, dark}`), read again
// with the catalog; the status line paints the active facet's name in the variant for the background.
import type { FacetColors } from "../../src/agent/context/facets.ts";

export type FacetColorTable = Map<string, FacetColors>;

const HEX = /^#[0-9a-fA-F]{6}$/;

/** Replaces the table's entries with the catalog's `facets`; entries that are not two #RRGGBB colors are left out. */
export function readFacetColors(facets: unknown, table: FacetColorTable): void {
  table.clear();
  if (!Array.isArray(facets)) return;
  for (const f of facets as { name?: unknown; colors?: { light?: unknown; dark?: unknown } }[]) {
    const { light, dark } = f?.colors ?? {};
    if (typeof f?.name === "string" && typeof light === "string" && typeof dark === "string" && HEX.test(light) && HEX.test(dark)) table.set(f.name, { light, dark });
  }
}
