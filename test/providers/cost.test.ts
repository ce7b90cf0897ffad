// The session cost figure: usage priced at the models.dev rates of the model that produced it.
import { describe, expect, test } from "bun:test";
import { catalogProvider } from "../../src/providers/catalog.ts";
import { messageCost, modelPrice, sessionCost, usageCostUsd } from "../../src/providers/cost.ts";
import { modelCatalog } from "../../src/providers/model-catalog.ts";
import { configEnv } from "../helpers/config-env.ts";

const u = (input: number, output: number, cache_read = 0, cache_write = 0) => ({ input_tokens: input, output_tokens: output, cache_read_tokens: cache_read, cache_write_tokens: cache_write, reasoning_tokens: 0 });

describe("cost", () => {
  test("cache reads and writes at their own rates, the rest of the input at the input rate (USD per million)", () => {
    const price = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };
    // 10k input of which 6k read from cache and 2k written: 2k plain.
    expect(usageCostUsd(u(10_000, 1_000, 6_000, 2_000), price)).toBeCloseTo((2_000 * 3 + 6_000 * 0.3 + 2_000 * 3.75 + 1_000 * 15) / 1e6, 12);
    expect(usageCostUsd(u(1_000, 0, 500), { input: 2, output: 8, cache_read: null, cache_write: null })).toBeCloseTo(0.002, 12);
  });

  test("a session adds its priced messages and counts the others; a catalog model's price comes from the snapshot", () => {
    const c = configEnv();
    const env = { ...c.env, ANTHROPIC_API_KEY: "k" };
    const loaded = c.load({ env });
    const price = modelPrice(loaded, "anthropic/claude-sonnet-5", env)!;
    const snapshot = modelCatalog(null).models(catalogProvider("anthropic")!).find((m) => m.provider_name === "claude-sonnet-5")!.cost!;
    expect(price).toEqual(snapshot);
    const cost = sessionCost(
      [
        { model: "anthropic/claude-sonnet-5", usage: u(1_000_000, 0) },
        { model: "anthropic/claude-sonnet-5", usage: u(0, 1_000_000) },
        { model: "local/m", usage: u(5, 5) },
        { model: "anthropic/claude-sonnet-5", usage: null },
      ],
      (m) => modelPrice(loaded, m, env),
    );
    expect(cost).toEqual({ usd: snapshot.input + snapshot.output, priced_messages: 2, unpriced_messages: 1 });
    expect(sessionCost([{ model: "local/m", usage: u(5, 5) }], () => null)).toEqual({ usd: null, priced_messages: 0, unpriced_messages: 1 });
  });

  test("one message's cost, as the daemon records it with assistant_message_completed: null without a price", () => {
    const c = configEnv();
    const env = { ...c.env, ANTHROPIC_API_KEY: "k" };
    const loaded = c.load({ env });
    const costOf = messageCost(loaded, env);
    const price = modelPrice(loaded, "anthropic/claude-sonnet-5", env)!;
    expect(costOf("anthropic/claude-sonnet-5", u(1_000_000, 1_000_000))).toBeCloseTo(price.input + price.output, 9);
    expect(costOf("nowhere/model", u(5, 5))).toBeNull();
  });
});
