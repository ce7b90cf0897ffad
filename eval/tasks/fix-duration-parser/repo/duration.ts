const UNITS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/** "1h", "1m30s", "2h5m" -> seconds. */
export function parseDuration(text: string): number {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([hms])/g)) {
    total = Number(amount) * UNITS[unit!]!;
  }
  return total;
}
