/** Money as "12.50 EUR". */
export function formatMoney(cents: number, currency: string): string {
  return `${(cents / 100).toFixed(2)} ${currency}`;
}

/** The old format ("EUR 12,50"), from before 2.0. */
export function legacyFormat(cents: number, currency: string): string {
  return `${currency} ${(cents / 100).toFixed(2).replace(".", ",")}`;
}

/** A percentage with one decimal. */
export function formatPercent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
