// The redaction helper's minimum: a configured secret shorter than 8 characters is not searched for in
// text (a 1-character key turned every matching letter of output into the marker); from 8 on it is.
import { expect, test } from "bun:test";
import { MIN_SECRET_LENGTH, REDACTED, redactText, redactValue } from "../../src/util/redact.ts";

const output = "a plain sentence about data and tests";

test("secrets shorter than 8 characters leave text as it is", () => {
  expect(MIN_SECRET_LENGTH).toBe(8);
  for (const secret of ["a", "e", "at", "data", "sentenc"]) expect(redactText(output, [secret])).toBe(output);
  expect(redactValue({ note: output, list: [output] }, ["a", "t"])).toEqual({ note: output, list: [output] });
});

test("secrets of 8 characters or more are redacted wherever they appear", () => {
  expect(redactText(output, ["sentence"])).toBe(`a plain ${REDACTED} about data and tests`);
  expect(redactText("k=Zq81mW0pXr9 then Zq81mW0pXr9", ["Zq81mW0pXr9", "a"])).toBe(`k=${REDACTED} then ${REDACTED}`);
  // Names that say "secret" still hide their value whatever its length.
  expect(redactValue({ api_key: "a" }, [])).toEqual({ api_key: REDACTED });
});
