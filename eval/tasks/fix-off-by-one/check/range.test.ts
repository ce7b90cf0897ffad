import { expect, test } from "bun:test";
import { range } from "./range.ts";

test("range", () => {
  expect(range(0)).toEqual([]);
  expect(range(3)).toEqual([0, 1, 2]);
});
