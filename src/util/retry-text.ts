// How a provider retry reads on every screen (the conversation view, `agent exec`, the plain printer),
// so they agree: "retry 2/3 in 4.0 s". The record's `attempt` is the attempt about to start (2 for the
// first retry), so the retry's own number is one less; it never reads above `max_retries`.

export function retryNumber(attempt: number, maxRetries: number): string {
  const n = Math.max(1, Math.min(attempt - 1, maxRetries));
  return `${n}/${maxRetries}`;
}

export function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** `retry 2/3 in 4.0 s` */
export function retryText(attempt: number, maxRetries: number, delayMs: number): string {
  return `retry ${retryNumber(attempt, maxRetries)} in ${formatDelay(delayMs)}`;
}
