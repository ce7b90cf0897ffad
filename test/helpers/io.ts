import type { Io } from "../../src/util/cli-command.ts";

export interface CapturedIo extends Io {
  stdout: string;
  stderr: string;
}

/** An Io that records everything a command prints, for in-process CLI tests. */
export function captureIo(options: { cwd?: string; env?: Record<string, string | undefined>; stdin?: string } = {}): CapturedIo {
  const io: CapturedIo = {
    stdout: "",
    stderr: "",
    out(t) { io.stdout += t; },
    err(t) { io.stderr += t; },
    isTty: false,
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? { ...process.env },
    stdin: async () => options.stdin ?? "",
  };
  return io;
}
