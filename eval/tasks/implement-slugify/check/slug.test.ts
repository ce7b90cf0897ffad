import { expect, test } from "bun:test";
import { slugify } from "./slug.ts";

test("slugify", () => {
  expect(slugify("Hello, World!")).toBe("hello-world");
  expect(slugify("  Ship v2.0 -- now ")).toBe("ship-v2-0-now");
  expect(slugify("already-fine")).toBe("already-fine");
  expect(slugify("!!!")).toBe("");
});
