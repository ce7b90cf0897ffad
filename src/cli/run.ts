import type { Io } from "./command.ts";
import { rootCommand } from "./commands.ts";
import { dispatch } from "./dispatch.ts";
import { isLaunch } from "../update/launch-commands.ts";

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

export async function runCli(argv: string[], io: Io): Promise<number> {
  const code = await dispatch(rootCommand, argv, io);
  // After local-use commands only: the update notice and, once a day, a detached check (updates.automatic_check).
  if (isLaunch(argv)) (await import("../update/launch.ts")).afterCommand(argv, io);
  return code;
}
