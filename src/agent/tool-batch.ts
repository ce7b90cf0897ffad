// Runs the tool calls of one assistant message: counted calls concurrently up to the model's
// max_tool_batch_size, calls sharing a lock key (the same file, the shell) one at a time in call order,
// and every call answered in call order, even when cancelled.

export interface BatchCall {
  call_id: string;
  /** Calls with the same key never overlap. */
  lockKey?: string;
  /** Cheap bookkeeping tools (progress_update, exit_tool, tool_search) do not take a batch slot. */
  counted: boolean;
  run(signal: AbortSignal): Promise<void>;
}

/** Resolves when every call has run (or was skipped because `signal` aborted before it started). */
export async function runBatch(calls: readonly BatchCall[], maxConcurrent: number, signal: AbortSignal): Promise<void> {
  const limit = Math.max(1, maxConcurrent);
  let running = 0;
  const waiters: (() => void)[] = [];
  const acquire = async (): Promise<void> => {
    while (running >= limit) await new Promise<void>((resolve) => waiters.push(resolve));
    running++;
  };
  const release = (): void => {
    running--;
    waiters.shift()?.();
  };
  // The previous call holding each lock key; a call waits for it before starting.
  const lockTails = new Map<string, Promise<void>>();
  const all = calls.map((call) => {
    const before = call.lockKey ? lockTails.get(call.lockKey) : undefined;
    const done = (async () => {
      if (before) await before;
      if (call.counted) await acquire();
      try {
        await call.run(signal);
      } finally {
        if (call.counted) release();
      }
    })();
    if (call.lockKey) lockTails.set(call.lockKey, done.catch(() => {}));
    return done;
  });
  await Promise.allSettled(all);
}
