// Facts about where the session runs, read once when it starts: the repository's git state and the
// user's local date and time zone. They go into the system prompt, so they stay fixed for the session
// (a prompt that changed every request would lose the provider's cache).
import { type Clock } from "../../util/clock.ts";

/** `git status --short` lines shown; the rest is counted. */
export const MAX_STATUS_LINES = 40;
/** Recent commit subjects shown. */
export const RECENT_COMMITS = 5;

export interface GitFacts {
  branch: string;
  upstream: string | null;
  /** `git status --short` lines, at most MAX_STATUS_LINES. */
  status: string[];
  /** Status lines beyond the ones shown. */
  moreStatus: number;
  commits: string[];
}

/**
 * Runs git read-only in `dir`. A repository's own config can name programs for `git status` to run (an
 * fsmonitor hook, clean filters); reading the state must run nothing of the repository's, so those are
 * switched off for the call.
 */
function git(dir: string, args: string[], env: Record<string, string | undefined>, overrides: string[] = []): string | null {
  try {
    const out = Bun.spawnSync(["git", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c", "log.showSignature=false", ...overrides, ...args], {
      cwd: dir,
      env: { ...env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
      stdout: "pipe",
      stderr: "ignore",
      timeout: 5000,
    });
    return out.exitCode === 0 ? out.stdout.toString() : null;
  } catch {
    // No git on this machine.
    return null;
  }
}

/** The repository's branch, upstream, short status and recent commits; null outside a repository. */
export function gitFacts(dir: string, env: Record<string, string | undefined>): GitFacts | null {
  const branch = git(dir, ["rev-parse", "--abbrev-ref", "HEAD"], env)?.trim();
  if (!branch) return null;
  const upstream = git(dir, ["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"], env)?.trim() || null;
  // Every filter driver the config defines becomes a no-op for the status call.
  const drivers = new Set((git(dir, ["config", "--name-only", "--get-regexp", "^filter\\."], env) ?? "").split("\n").map((k) => /^filter\.(.+)\.[^.]+$/.exec(k)?.[1]).filter((d): d is string => !!d));
  const neutral = [...drivers].flatMap((d) => ["-c", `filter.${d}.clean=cat`, "-c", `filter.${d}.smudge=cat`, "-c", `filter.${d}.process=`]);
  const status = (git(dir, ["status", "--short", "--untracked-files=normal"], env, neutral) ?? "").split("\n").filter((l) => l.trim() !== "");
  const commits = (git(dir, ["log", `-${RECENT_COMMITS}`, "--format=%h %s"], env) ?? "").split("\n").filter((l) => l !== "");
  return {
    // A repository without commits names its branch HEAD until the first commit.
    branch: branch === "HEAD" ? "(detached HEAD)" : branch,
    upstream,
    status: status.slice(0, MAX_STATUS_LINES),
    moreStatus: Math.max(0, status.length - MAX_STATUS_LINES),
    commits,
  };
}

export interface LocalTime {
  /** `2026-12-01 (Tuesday)`, in the user's time zone. */
  date: string;
  /** `America/New_York (UTC-05:00)`. */
  zone: string;
}

/** The session's start date in `timeZone` (IANA name; an unknown one falls back to UTC). */
export function localTime(clock: Clock, timeZone: string | undefined): LocalTime {
  const at = new Date(clock.now());
  let zone = timeZone || Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", weekday: "long", timeZoneName: "longOffset" }).formatToParts(at);
  } catch {
    zone = "UTC";
    parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", weekday: "long", timeZoneName: "longOffset" }).formatToParts(at);
  }
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const offset = get("timeZoneName") === "GMT" ? "UTC+00:00" : get("timeZoneName").replace("GMT", "UTC");
  return { date: `${get("year")}-${get("month")}-${get("day")} (${get("weekday")})`, zone: `${zone} (${offset})` };
}
