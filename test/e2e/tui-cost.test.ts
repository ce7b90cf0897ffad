// The session's cost in the status line: the compiled binary in a real terminal, started with nothing but
// ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL (a fake at the Messages path), shows what the session's
// messages cost at the catalog model's models.dev price, summed over the session.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";
import { catalogProvider } from "../../src/providers/catalog.ts";
import { usageCostUsd } from "../../src/providers/cost.ts";
import { emptyUsage } from "../../src/providers/events.ts";
import { modelCatalog } from "../../src/providers/model-catalog.ts";
import { formatCost } from "../../tui/components/status-line.tsx";
import { type TuiProject, Terminals, send } from "./tui-harness.ts";

const terms = new Terminals();
const fakes: ProviderFake[] = [];

beforeAll(() => ensureBinary(), 240_000);
afterAll(async () => {
  await terms.closeAll();
  for (const f of fakes) await f.stop();
}, 60_000);

function keyOnlyProject(baseUrl: string): TuiProject {
  const base = mkdtempSync(join(tmpdir(), "agent-tui-cost-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  const configDir = join(base, "config", "agent");
  const env = {
    HOME: join(base, "home"),
    XDG_DATA_HOME: join(base, "data"),
    XDG_CONFIG_HOME: join(base, "config"),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TERM: "xterm-256color",
    ANTHROPIC_API_KEY: "sk-test-0123456789abcdef",
    ANTHROPIC_BASE_URL: baseUrl,
  };
  return { root, env, configDir };
}

describe("status line cost", () => {
  test("a priced catalog model: the session's cost appears after the first answer and adds up", async () => {
    // Usage large enough that each answer costs tens of cents, not fractions of one, and small enough
    // (110k tokens) to stay under the compaction point of the 200k useful-context cap, which would
    // otherwise spend the fake's second answer on a summary.
    const usage = { input: 60_000, output: 10_000, cache_read: 30_000, cache_write: 10_000 };
    const f = startProviderFake("a_messages", [
      { kind: "turn", turn: { text: "First answer.", usage } },
      { kind: "turn", turn: { text: "Second answer.", usage } },
    ]);
    fakes.push(f);
    const price = modelCatalog(null).models(catalogProvider("anthropic")!).find((m) => m.provider_name === "claude-sonnet-5")!.cost!;
    // The Messages fake reports input apart from cache reads and writes; the total input is their sum.
    const one = usageCostUsd(
      { ...emptyUsage(), input_tokens: usage.input + usage.cache_read + usage.cache_write, output_tokens: usage.output, cache_read_tokens: usage.cache_read, cache_write_tokens: usage.cache_write },
      price,
    );
    expect(one).toBeGreaterThan(0.01);
    const p = keyOnlyProject(f.url);
    const t = terms.start(p, []);
    await t.waitFor((s) => s.screen().includes("› "), "the prompt editor");
    terms.sessionOf(t, p);
    expect(t.screen()).not.toContain("$");
    await send(t, "hi");
    await t.waitFor("First answer.", "the first answer");
    await t.waitFor(formatCost(one), `the cost ${formatCost(one)} in the status line`);
    await send(t, "again");
    await t.waitFor("Second answer.", "the second answer");
    await t.waitFor(formatCost(2 * one), `the summed cost ${formatCost(2 * one)}`);
    const statusRow = t.screen().split("\n").findLast((l) => l.includes("context")) ?? "";
    expect(statusRow).toContain(`claude-sonnet-5`);
    expect(statusRow).toContain(`· ${formatCost(2 * one)}`);
  }, 90_000);
});
