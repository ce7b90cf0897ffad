import { formatMoney, formatPercent } from "./format.ts";

console.log(`total ${formatMoney(1250, "EUR")}, ${formatPercent(0.125)} tax`);
