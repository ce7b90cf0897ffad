// What this agent is: the release version and the commit it was built from. build.ts compiles both in
// (the AGENT_BUILD define); run from source, the version is package.json's and there is no build commit.
import pkg from "../package.json" with { type: "json" };

interface BuildInfo {
  version: string;
  commit: string;
  /** The release asset key the binary was built as (`linux-x64-musl`, ...), when it is a release build. */
  asset?: string;
}

declare const AGENT_BUILD: BuildInfo | undefined;

const BUILD: BuildInfo | null = typeof AGENT_BUILD === "object" ? AGENT_BUILD : null;

export const VERSION: string = BUILD?.version ?? pkg.version;

/** The full commit id (`+modified` when built from a tree with uncommitted changes), `unknown` outside git, null from source. */
export const COMMIT: string | null = BUILD?.commit ?? null;

export const BUILD_ASSET: string | null = BUILD?.asset ?? null;

/** What `agent --version` prints: `agent 0.3.0 (commit 1a2b3c4d5e6f)`; scripts read the second word. */
export function versionLine(version: string = VERSION, commit: string | null = COMMIT): string {
  if (commit === null) return `agent ${version} (from source)`;
  const short = commit.replace(/^([0-9a-f]{12})[0-9a-f]*/, "$1").replace("+modified", ", modified");
  return `agent ${version} (commit ${short})`;
}

/** The version in a `--version` line (`agent 0.3.0` or `agent 0.3.0 (commit …)`), or null. */
export function parseVersionLine(printed: string): string | null {
  return /^agent (\S+)(?: \([^\n]*\))?$/.exec(printed.trim())?.[1] ?? null;
}
