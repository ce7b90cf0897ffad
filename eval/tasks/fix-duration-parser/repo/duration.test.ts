import { expect, test } from "bun:test";
import { parseDuration } from "./duration.ts";

test("parseDuration", () => {
  expect(parseDuration("1h")).toBe(3600);
  expect(parseDuration("1m30s")).toBe(90);
});
