import { expect, test } from "bun:test";
import { parseDuration } from "./duration.ts";

test("parseDuration", () => {
  expect(parseDuration("1h")).toBe(3600);
  expect(parseDuration("1m30s")).toBe(90);
});

test("parseDuration, more", () => {
  expect(parseDuration("2h5m")).toBe(7500);
  expect(parseDuration("45s")).toBe(45);
});
