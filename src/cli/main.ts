#!/usr/bin/env bun
// Entry point of the `agent` binary. `--version` answers before anything else is imported so the
// most common health check stays at the cost of a bare Bun start.
import { versionLine } from "../version.ts";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${versionLine()}\n`);
} else {
  // Crash handlers first: an uncaught error anywhere leaves a redacted report under the data root.
  (await import("../platform/crash/install.ts")).installCrashHandlers(argv, async () => (await import("./commands.ts")).rootCommand);
  const { runCli, processIo } = await import("./run.ts");
  process.exitCode = await runCli(argv, processIo());
}
