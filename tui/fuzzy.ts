// Fuzzy matching for the completion menus: the query's characters in order (case-insensitive), scored so
// that matches at word starts (after / . _ - or a space, or a capital), runs of consecutive characters and
// matches in a path's file name come first; ties go to the shorter candidate.

/** Higher is better; null when `query` is not a subsequence of `text`. */
export function fuzzyScore(query: string, text: string): number | null {
  if (!query) return 0;
  const q = query.toLowerCase();
  const t = text.toLowerCase();
  const base = text.lastIndexOf("/") + 1;
  let score = 0;
  let at = 0;
  let run = 0;
  for (const ch of q) {
    const found = t.indexOf(ch, at);
    if (found < 0) return null;
    const prev = text[found - 1];
    const wordStart = found === 0 || prev === undefined || "/._- ".includes(prev) || (text[found] !== t[found] && prev === prev.toLowerCase());
    run = found === at && at > 0 ? run + 1 : 0;
    score += 1 + (wordStart ? 8 : 0) + run * 5 + (found >= base ? 3 : 0) - Math.min(found - at, 10) * 0.5;
    at = found + 1;
  }
  if (t.startsWith(q)) score += 20;
  return score - text.length * 0.05;
}

/** The best `limit` candidates for `query`, best first. */
export function fuzzyFilter<T>(query: string, items: readonly T[], key: (item: T) => string, limit: number): T[] {
  const scored: { item: T; score: number }[] = [];
  for (const item of items) {
    const score = fuzzyScore(query, key(item));
    if (score !== null) scored.push({ item, score });
  }
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, limit).map((s) => s.item);
}
