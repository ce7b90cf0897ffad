import { expect, test } from "bun:test";
import * as format from "./format.ts";

test("the used functions stay, the dead one is gone", () => {
  expect(format.formatMoney(1250, "EUR")).toBe("12.50 EUR");
  expect(format.formatPercent(0.125)).toBe("12.5%");
  expect("legacyFormat" in format).toBe(false);
});
