import type { Io } from "./command.ts";
import { rootCommand } from "./commands.ts";
import { dispatch } from "./dispatch.ts";

export function processIo(): Io {
  return {
    out: (text) => void process.stdout.write(text),
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
