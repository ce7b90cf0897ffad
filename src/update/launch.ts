// The check at launch (`updates.automatic_check`, default on): after a local-use command, show the
// answer a previous check left, and, at most once a day, start a detached `agent update --check` that
// writes the next answer. The command itself never waits for the network.
import { spawn } from "node:child_process";
import type { Io } from "../util/cli-command.ts";
import { UpdatesConfig } from "../config/schema/session.ts";
import { globalBlock, readGlobalLayer } from "../platform/global-layer.ts";
import { VERSION } from "../version.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { checkFile, lastCheck, type RememberedCheck } from "./check.ts";
import { isLaunch } from "./launch-commands.ts";
import { selfCommand } from "./self.ts";
import { compareVersions, parseVersion } from "./semver.ts";

export const CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** The line to show when the last check found a release newer than this agent. */
export function updateNotice(last: RememberedCheck | null, running: string = VERSION): string | null {
  if (!last?.available || !last.latest) return null;
  const latest = parseVersion(last.latest);
  const current = parseVersion(running);
  if (!latest || !current || compareVersions(latest, current) <= 0) return null;
  return `agent ${last.latest} is available (you have ${running}); run \`agent update\` to install it`;
}

/** Whether a new background check is due: none yet, older than a day, or made by another version. */
export function checkDue(last: RememberedCheck | null, now: Date, running: string = VERSION): boolean {
  if (!last) return true;
  const at = Date.parse(last.checked_at);
  return !Number.isFinite(at) || now.getTime() - at >= CHECK_INTERVAL_MS || last.current !== running;
}

export interface LaunchOptions {
  now?: Date;
  /** Starts the detached check (tests observe it). */
  start?: (argv: string[], env: Record<string, string | undefined>) => void;
}

function startDetached(argv: string[], env: Record<string, string | undefined>): void {
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: "ignore", env });
  child.on("error", () => {});
  child.unref();
}

export function afterCommand(argv: readonly string[], io: Io, options: LaunchOptions = {}): void {
  if (!isLaunch(argv)) return;
  try {
    // The file as written: the full loader would run the config's $(command) substitutions again after
    // every command. A manifest_url that needs substitution leaves the launch check off.
    const updates = globalBlock(readGlobalLayer(io.env), "updates", UpdatesConfig);
    if (!updates || updates.automatic_check === false || !updates.manifest_url) return;
    const last = lastCheck(io.env);
    const notice = updateNotice(last);
    if (notice) io.err(`${notice}\n`);
    const now = options.now ?? new Date();
    if (!checkDue(last, now)) return;
    // Stamp the attempt first, so that runs started while it is under way (or after it failed) do not start more.
    const stamped: RememberedCheck = { checked_at: now.toISOString(), current: VERSION, latest: last?.latest ?? null, channel: last?.channel ?? "stable", available: last?.available ?? false };
    writeFileAtomic(checkFile(io.env), `${JSON.stringify(stamped)}\n`, 0o600);
    (options.start ?? startDetached)([...selfCommand(), "update", "--check"], { ...io.env });
  } catch {
    // The launch check is a courtesy: a broken config or a full disk never fails the command that ran.
  }
}
