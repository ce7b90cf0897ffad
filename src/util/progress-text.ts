// A running tool call's progress as people read it, for the TUI's tool line and agent exec's stderr.

/** "3/10 (30%) copying files", or "3 copying files" when the total is unknown. */
export function progressText(p: { progress: number; total?: number; message?: string }): string {
  const amount = p.total ? `${p.progress}/${p.total} (${Math.floor((100 * p.progress) / p.total)}%)` : `${p.progress}`;
  return p.message ? `${amount} ${p.message}` : amount;
}
