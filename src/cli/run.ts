import type { Io } from "../util/cli-command.ts";
import { rootCommand } from "./commands.ts";
import { dispatch } from "./dispatch.ts";
import { isLaunch } from "../update/launch-commands.ts";

export function processIo(): Io {
  // The reader went away (`agent sessions list | head`): Bun reports the broken pipe as an error event of
  // the stream, which without a listener is an uncaught exception (a crash report). Stop writing to it
  // and keep running to a clean end, as a pipeline expects.
  let stdoutGone = false;
  const ignoreBrokenPipe = (stream: NodeJS.WriteStream, gone: () => void) =>
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      gone();
    });
  ignoreBrokenPipe(process.stdout, () => (stdoutGone = true));
  ignoreBrokenPipe(process.stderr, () => {});
  return {
    out: (text) => {
      if (stdoutGone) return;
      try {
        process.stdout.write(text);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EPIPE") throw error;
        stdoutGone = true;
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
