/** The numbers 0, 1, ..., n-1. */
export function range(n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i <= n; i++) out.push(i);
  return out;
}
