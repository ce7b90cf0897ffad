// Keeps the last lines of a long markdown text, reopening a code fence the cut fell inside, so the kept
// part renders as it would in the whole. Used for the live tail (only what fits the screen re-renders)
// and for the history printed on attach.

export function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

export function tailLines(text: string, max: number): { text: string; hidden: number } {
  const total = lineCount(text);
  if (total <= max) return { text, hidden: 0 };
  let at = text.length;
  for (let kept = 0; kept < max; kept++) at = text.lastIndexOf("\n", at - 1);
  const dropped = text.slice(0, at);
  const fences = dropped.match(/^\s*(```|~~~)/gm)?.length ?? 0;
  const kept = text.slice(at + 1);
  return { text: fences % 2 === 1 ? `\`\`\`\n${kept}` : kept, hidden: total - max };
}
