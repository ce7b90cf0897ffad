// Facet files declare policies (the model reads them with the facet's prompt) and light/dark colors
// (clients paint the facet with them); the catalog lists both, with effective defaults; bad values are
// errors naming the facet, the file and the field.
import { afterEach, describe, expect, test } from "bun:test";
import { facetCatalog } from "../../src/agent/facets/catalog.ts";
import { loadConfig } from "../../src/config/load.ts";
import { startProviderFake, type ProviderFake } from "../fakes/provider-fake.ts";
import { makeProject, startSession } from "./harness.ts";

let fake: ProviderFake | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

function config(f: ProviderFake): string {
  return `providers:
  fake: { kind: { type: custom_a_compatible }, url: "${f.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  m: { provider: fake, class: full, context_window: 100000 }
defaults: { full: m }
default_permission_matcher: bypass
active_session: { default_exec_facet: review }
`;
}

const REVIEW = `---
description: Reviews the change
policies:
  - Never change files outside src/.
  - Cite the line of every finding.
colors: { light: "#aa0000", dark: "#ff8080" }
---
You are the REVIEW facet.
`;

describe("facet policies and colors", () => {
  test("policies reach the model with the facet's prompt", async () => {
    fake = startProviderFake("a_messages", [{ kind: "turn", turn: { text: "ok" } }]);
    const p = makeProject(config(fake), { ".agent/facets/review.md": REVIEW });
    const r = await startSession(p);
    r.session.submit({ text: "review it" });
    await r.session.idle();
    const system = (fake.requests[0]!.body.system ?? []).map((b: { text: string }) => b.text).join("\n");
    expect(system).toContain("You are the REVIEW facet.");
    expect(system).toContain("Policies of the review facet (follow them while it is active):\n- Never change files outside src/.\n- Cite the line of every finding.");
    await r.session.close();
  });

  test("the catalog lists declared policies and effective colors (built-in and stable defaults)", () => {
    const p = makeProject("facets:\n  other: { source: other.md }\n", { ".agent/facets/review.md": REVIEW, "other.md": "---\ndescription: x\n---\nOther.\n" });
    const loaded = loadConfig({ cwd: p.root, env: p.env });
    const byName = new Map(facetCatalog(loaded).map((f) => [f.name, f]));
    expect(byName.get("review")).toMatchObject({ policies: ["Never change files outside src/.", "Cite the line of every finding."], colors: { light: "#aa0000", dark: "#ff8080" } });
    expect(byName.get("execute")).toMatchObject({ policies: [], colors: { light: "#1f6feb", dark: "#58a6ff" } });
    expect(byName.get("plan")!.colors).toEqual({ light: "#9a6700", dark: "#d29922" });
    const other = byName.get("other")!.colors as { light: string; dark: string };
    expect(other.light).toMatch(/^#[0-9a-f]{6}$/);
    // Stable: the same name gets the same default every time.
    expect(facetCatalog(loadConfig({ cwd: p.root, env: p.env })).find((f) => f.name === "other")!.colors).toEqual(other);
  });

  test("bad policies or colors are errors naming the facet, the file and the field", async () => {
    const cases: [string, string][] = [
      ["policies: yes", "frontmatter 'policies' must be a list of non-empty strings"],
      ['colors: { light: "red" }', "frontmatter 'colors.light' must be a color as #RRGGBB; found \"red\""],
      ['colors: { dim: "#000000" }', "frontmatter 'colors' must be a map with `light` and/or `dark`"],
    ];
    for (const [front, message] of cases) {
      const p = makeProject("providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\nactive_session: { default_exec_facet: bad }\n", {
        "script.yaml": "responses:\n  - text: ok\n",
        ".agent/facets/bad.md": `---\n${front}\n---\nBody.\n`,
      });
      const error = await startSession(p).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).toContain("facet 'bad' (");
      expect(error?.message).toContain("bad.md");
      expect(error?.message).toContain(message);
    }
  });
});
