import type { Io } from "./command.ts";
import { rootCommand } from "./commands.ts";
import { dispatch } from "./dispatch.ts";

export function processIo(): Io {
  return {
    out: (text) => {
      try {
        process.stdout.write(text);
      } catch (error) {
        // The reader went away (`agent exec --json | head`): stop writing, keep running to a clean end.
        if ((error as NodeJS.ErrnoException).code !== "EPIPE") throw error;
      }
    },
    err: (text) => void process.stderr.write(text),
    isTty: Boolean(process.stdout.isTTY),
    cwd: process.cwd(),
    env: process.env,
    stdin: () => Bun.stdin.text(),
  };
}

export function runCli(argv: string[], io: Io): Promise<number> {
  return dispatch(rootCommand, argv, io);
}
