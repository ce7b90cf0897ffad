// Derived model values: computed when omitted, written values win.
import { describe, expect, test } from "bun:test";
import { deriveCompactionThreshold, deriveMaxOutputTokensPerTurn, deriveMaxToolBatchSize } from "../../src/config/derived.ts";
import { configEnv } from "../helpers/config-env.ts";

describe("derived values", () => {
  test("max_tool_batch_size: 4 for unknown or small windows, up to 8", () => {
    expect([undefined, 8_000, 64_000, 100_000, 200_000, 272_000, 1_000_000].map((w) => deriveMaxToolBatchSize(w))).toEqual([4, 4, 4, 5, 6, 7, 8]);
  });

  test("max_output_tokens_per_turn: an eighth of the window, 1024..32768, never above max_tokens", () => {
    expect(deriveMaxOutputTokensPerTurn(200_000, null)).toBe(24_576);
    expect(deriveMaxOutputTokensPerTurn(1_000_000, null)).toBe(32_768);
    expect(deriveMaxOutputTokensPerTurn(4_000, null)).toBe(1_024);
    expect(deriveMaxOutputTokensPerTurn(200_000, 8_192)).toBe(8_192);
  });

  test("compaction_threshold: per-tier reserve, rounded down to two decimals, reserve grows to fit the output limit", () => {
    expect(deriveCompactionThreshold(200_000, "full", 24_576)).toBe(0.8);
    expect(deriveCompactionThreshold(200_000, "mini", 24_576)).toBe(0.85);
    expect(deriveCompactionThreshold(200_000, "nano", 8_000)).toBe(0.9);
    expect(deriveCompactionThreshold(200_000, "full", 64_000)).toBe(0.68);
    expect(deriveCompactionThreshold(128_000, "full", 1_000)).toBe(0.8);
    // Tiny windows: the reserve is capped at half the window.
    expect(deriveCompactionThreshold(30_000, "full", 1_024)).toBe(0.5);
  });

  test("resolved models carry derived values and which fields were derived", () => {
    const c = configEnv();
    c.globalFile(`providers:\n  l: { kind: { type: custom_b_compatible }, url: "http://127.0.0.1:1/v1" }\nmodels:\n  auto: { provider: l, class: full, context_window: 200000 }\n  set: { provider: l, class: full, context_window: 200000, max_output_tokens_per_turn: 64000, max_tool_batch_size: 2, compaction_threshold: 0.5 }\n`);
    const r = c.load();
    expect(r.ok).toBe(true);
    const auto = r.models.models.get("auto")!;
    expect(auto).toMatchObject({ max_output_tokens_per_turn: 24_576, compaction_threshold: 0.8, max_tool_batch_size: 6 });
    expect(auto.derived.sort()).toEqual(["compaction_threshold", "max_output_tokens_per_turn", "max_tool_batch_size"]);
    const set = r.models.models.get("set")!;
    expect(set).toMatchObject({ max_output_tokens_per_turn: 64_000, compaction_threshold: 0.5, max_tool_batch_size: 2, derived: [] });
  });
});
