/** Levenshtein distance, used to suggest the closest valid name for a mistyped one. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The closest candidate, or undefined when nothing is close enough to be a plausible typo. */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  // Names are short; a huge input is not a typo and must not cost quadratic time.
  if (typeof input !== "string" || input.length > 256) return undefined;
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    if (typeof c !== "string" || Math.abs(c.length - input.length) > Math.max(2, Math.floor(c.length / 3))) continue;
    const d = editDistance(input.toLowerCase(), c.toLowerCase());
    const score = c.startsWith(input) || input.startsWith(c) ? Math.min(d, 1) : d;
    if (score < bestScore) {
      bestScore = score;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  return bestScore <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** " (did you mean X?)" or "" — appended to errors about unknown names. */
export function didYouMean(input: string, candidates: Iterable<string>, quote = "`"): string {
  const c = closest(input, candidates);
  return c === undefined ? "" : ` (did you mean ${quote}${c}${quote}?)`;
}

/** " (did you mean X?)", or the list of valid names when none is close: a usage error always names one. */
export function suggestOrList(input: string, candidates: readonly string[], quote = "'"): string {
  const hint = didYouMean(input, candidates, quote);
  if (hint || candidates.length === 0) return hint;
  return ` (valid: ${candidates.map((c) => `${quote}${c}${quote}`).join(", ")})`;
}
