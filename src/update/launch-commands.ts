// Which command lines count as a launch for the update check: the local-use ones (a bare `agent` or
// `agent --demo` on a terminal, new, continue, exec); not daemons, exports or admin commands. Kept apart
// from launch.ts so the CLI can ask without loading it.
const LAUNCH_COMMANDS = new Set(["new", "continue", "exec"]);

export function isLaunch(argv: readonly string[]): boolean {
  return argv.length === 0 || argv[0] === "--demo" || LAUNCH_COMMANDS.has(argv[0]!);
}
