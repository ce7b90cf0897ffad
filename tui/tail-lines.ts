// Keeps the last lines of a long markdown text, reopening a code fence the cut fell inside, so the kept
// part renders as it would in the whole. Used for the live tail (only what fits the screen re-renders)
// and for the history printed on attach. With a width, lines are counted as the screen rows they wrap to,
// and a single line longer than what is left keeps only its end.

export function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

export function tailLines(text: string, max: number, columns = Infinity): { text: string; hidden: number } {
  const lines = text.split("\n");
  const width = Math.max(1, columns);
  let rows = 0;
  let first = lines.length;
  let partial: string | null = null;
  while (first > 0) {
    const line = lines[first - 1]!;
    const need = Math.max(1, Math.ceil(line.length / width));
    if (rows + need > max) {
      const room = max - rows;
      // A line longer than the rows left: keep its last `room` rows' worth.
      if (room > 0 && first === lines.length) partial = `…${line.slice(line.length - room * width + 1)}`;
      break;
    }
    rows += need;
    first--;
  }
  if (first === 0 && partial === null) return { text, hidden: 0 };
  const kept = lines.slice(first);
  if (partial !== null) kept.splice(0, kept.length, partial);
  const fences = lines.slice(0, first).filter((l) => /^\s*(```|~~~)/.test(l)).length;
  const body = kept.join("\n");
  return { text: fences % 2 === 1 ? `\`\`\`\n${body}` : body, hidden: partial !== null ? first - 1 : first };
}
