// The check at launch (`updates.automatic_check`, default on): after a local-use command, show the
// answer a previous check left, and, at most once a day, start a detached `agent update --check` that
// writes the next answer. The command itself never waits for the network.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Value } from "@sinclair/typebox/value";
import type { Io } from "../cli/command.ts";
import { findConfigIn, globalConfigDir } from "../config/files.ts";
import { formatOf, isParseFailure, parseConfigText } from "../config/parse.ts";
import { UpdatesConfig } from "../config/schema/session.ts";
import { VERSION } from "../version.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { checkFile, lastCheck, type RememberedCheck } from "./check.ts";
import { selfCommand } from "./self.ts";
import { compareVersions, parseVersion } from "./semver.ts";

/** Commands after which the notice shows and a check may start (not daemons, exports or admin commands). */
export const LAUNCH_COMMANDS = new Set(["new", "continue", "exec"]);
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

/**
 * `updates` of the global config file as written. Not the full loader: that would run the config's
 * `$(command)` substitutions once more after every command; a value that needs substitution (or any
 * problem) leaves the launch check off, and `agent update` reads the config fully.
 */
export function globalUpdatesBlock(env: Readonly<Record<string, string | undefined>>) {
  const found = findConfigIn(globalConfigDir(env));
  if (found.kind !== "one") return null;
  const format = formatOf(found.path);
  if (!format) return null;
  const parsed = parseConfigText(found.path, readFileSync(found.path, "utf8").replace(/^\uFEFF/, ""), format);
  if (isParseFailure(parsed)) return null;
  const block = (parsed.data as Record<string, unknown> | null)?.updates;
  return block !== null && typeof block === "object" && Value.Check(UpdatesConfig, block) ? block : null;
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
  if (!LAUNCH_COMMANDS.has(argv[0] ?? "")) return;
  try {
    const updates = globalUpdatesBlock(io.env);
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
