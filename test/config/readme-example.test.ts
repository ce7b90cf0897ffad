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
  const result = c.load({ env: { A_API_KEY: "a-key-from-env" } });
  expect(problemLines(result)).toEqual([]);
  expect(result.defaults.full?.model).toBe("a-large");
  expect(result.models.models.get("my-local-model")?.provider).toBe("local");
});
