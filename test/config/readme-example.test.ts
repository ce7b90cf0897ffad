// The commented example in the README must stay a valid config.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { configEnv, problemLines } from "../helpers/config-env.ts";

test("the README's example config loads without problems", () => {
  const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
  const example = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example).toBeDefined();
  const c = configEnv();
  c.globalFile(example!);
  const result = c.load({ env: { ANTHROPIC_API_KEY: "a-key-from-env" } });
  expect(problemLines(result)).toEqual([]);
  expect(result.defaults.full?.model).toBe("anthropic/claude-sonnet-5");
  expect(result.models.models.get("anthropic/claude-sonnet-5")?.max_output_tokens_per_turn).toBe(32000);
  expect(result.models.models.get("my-local-model")?.provider).toBe("local");
});
