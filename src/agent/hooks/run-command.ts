// Runs one hook command: `sh -c` in the project directory, the event as JSON on stdin, in a process group
// of its own so a time limit kills everything it started. Output is kept up to a bound (a hook that
// floods its pipes is cut, not allowed to exhaust memory).

/** Kept of each of stdout and stderr; the rest is read and dropped. */
export const MAX_HOOK_OUTPUT_BYTES = 64 * 1024;

export interface CommandRun {
  /** null: killed (time limit, cancel) or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the command could not be started. */
  startError?: string;
}

export interface CommandSpec {
  command: string;
  cwd: string;
  env: Record<string, string>;
  input: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export async function runHookCommand(spec: CommandSpec): Promise<CommandRun> {
  let proc: ReturnType<typeof Bun.spawn<"pipe", "pipe", "pipe">>;
  try {
    proc = Bun.spawn(["/bin/sh", "-c", spec.command], { cwd: spec.cwd, env: spec.env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
  } catch (error) {
    return { exitCode: null, stdout: "", stderr: "", timedOut: false, startError: (error as Error).message };
  }
  let timedOut = false;
  const kill = () => {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      proc.kill("SIGKILL");
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, spec.timeoutMs);
  const onAbort = () => kill();
  spec.signal?.addEventListener("abort", onAbort, { once: true });
  // A hook that never reads its stdin must not block us: write, close, ignore a broken pipe.
  try {
    proc.stdin.write(spec.input);
    await proc.stdin.end();
  } catch {
    // the hook exited or closed stdin without reading it
  }
  const [stdout, stderr, code] = await Promise.all([bounded(proc.stdout), bounded(proc.stderr), proc.exited]);
  clearTimeout(timer);
  spec.signal?.removeEventListener("abort", onAbort);
  // Killed by a signal: no exit code of its own.
  const killed = timedOut || spec.signal?.aborted || proc.signalCode !== null;
  return { exitCode: killed ? null : code, stdout, stderr, timedOut };
}

async function bounded(stream: ReadableStream<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size >= MAX_HOOK_OUTPUT_BYTES) continue;
    const part = chunk.subarray(0, MAX_HOOK_OUTPUT_BYTES - size);
    chunks.push(part);
    size += part.length;
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
