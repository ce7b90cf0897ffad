// The catalog is real and documented: every provider has a real https address (or a loopback one for
// local servers, or none where each account has its own), sits on one of the 17 protocol values, has its
// default models in the snapshot, and appears in docs/providers.md with its variables and address.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CATALOG_PROVIDERS, catalogProvider } from "../../src/providers/catalog.ts";
import { modelCatalog } from "../../src/providers/model-catalog.ts";
import { PROTOCOLS } from "../../src/providers/protocols.ts";

const docs = readFileSync(join(import.meta.dir, "../../docs/providers.md"), "utf8");

test("every catalog provider: a real address, a spec protocol value, default models that exist, a row in the docs", () => {
  const catalog = modelCatalog(null);
  for (const p of CATALOG_PROVIDERS) {
    expect(PROTOCOLS as readonly string[]).toContain(p.protocol);
    if (p.url) expect(p.url).toMatch(p.auth === "none" ? /^http:\/\/127\.0\.0\.1:(11434|1234|8000|8080)\/v1$/ : /^https:\/\/[a-z0-9.-]+\.(com|ai|io|xyz|co)(\/|$)/);
    if (p.url) expect(p.url).not.toContain(".example");
    if (p.modelsDev && p.defaults) {
      const ids = new Set(catalog.models(p).map((m) => m.provider_name));
      for (const id of Object.values(p.defaults)) expect(ids.has(id) ? id : `${p.name}: missing ${id}`).toBe(id);
    }
    if (p.protocol === "test") continue;
    const rowLine = docs.split("\n").find((l) => l.startsWith(`| \`${p.name}\` — `));
    expect(rowLine ?? `no row for ${p.name}`).toContain(p.protocol);
    for (const v of p.env) expect(rowLine!).toContain(`\`${v}\``);
    if (p.url) expect(rowLine!).toContain(p.url);
  }
});

test("the spec's letters stay valid names, each on its own protocol value", () => {
  for (const protocol of PROTOCOLS) {
    if (protocol === "test") continue;
    expect(catalogProvider(protocol.split("_")[0]!)?.protocol).toBe(protocol === "b_chat_completions" ? "b_responses" : protocol);
  }
});
