// One update check: fetch the manifest, pick the channel's newest release for this platform, compare it
// with the installed version, and remember the answer in `<data root>/update-check.json` (the launch
// notice reads it on the next run).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { dataRoot } from "../config/files.ts";
import type { UPDATE_CHANNELS } from "../config/schema/session.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { BUILD_ASSET } from "../version.ts";
import { ManifestError, newestRelease, parseManifest, platformKey, type ReleaseAsset } from "./manifest.ts";
import { compareVersions, parseVersion } from "./semver.ts";

export type Channel = (typeof UPDATE_CHANNELS)[number];

export const CHECK_FILE = "update-check.json";
const MANIFEST_TIMEOUT_MS = 10_000;

export interface CheckResult {
  current: string;
  /** The channel's newest release for this platform, or null when it has none. */
  latest: string | null;
  channel: Channel;
  platform: string;
  /** True only when `latest` is newer than `current` (never a downgrade). */
  available: boolean;
  /** The asset to install, with its URL resolved against the manifest's. */
  asset: ReleaseAsset | null;
}

export interface CheckOptions {
  manifestUrl: string;
  channel: Channel;
  current: string;
  platform?: string;
  fetch?: typeof fetch;
}

export async function checkForUpdate(options: CheckOptions): Promise<CheckResult> {
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(options.manifestUrl, { signal: AbortSignal.timeout(MANIFEST_TIMEOUT_MS), headers: { Accept: "application/json" } });
  } catch (error) {
    throw new ManifestError(`cannot fetch the release manifest at ${options.manifestUrl} (${(error as Error).name === "TimeoutError" ? "timed out" : "not reachable"})`);
  }
  if (!response.ok) throw new ManifestError(`the release manifest at ${options.manifestUrl} answered HTTP ${response.status}`);
  const manifest = parseManifest(await response.text(), options.manifestUrl);
  // A release binary knows the asset it was built as (a musl build looks for the musl asset).
  const platform = options.platform ?? BUILD_ASSET ?? platformKey();
  const current = parseVersion(options.current);
  if (!current) throw new ManifestError(`the installed version '${options.current}' is not a version like 1.2.3`);
  const best = newestRelease(manifest, options.channel, platform);
  const available = best !== null && compareVersions(best.version, current) > 0;
  const asset = best?.asset ? { ...best.asset, url: new URL(best.asset.url, options.manifestUrl).href } : null;
  return { current: options.current, latest: best?.release.version ?? null, channel: options.channel, platform, available, asset };
}

export interface RememberedCheck {
  checked_at: string;
  current: string;
  latest: string | null;
  channel: Channel;
  available: boolean;
}

export function checkFile(env: Readonly<Record<string, string | undefined>>): string {
  return join(dataRoot(env), CHECK_FILE);
}

export function rememberCheck(env: Readonly<Record<string, string | undefined>>, result: CheckResult, now: Date): void {
  const record: RememberedCheck = { checked_at: now.toISOString(), current: result.current, latest: result.latest, channel: result.channel, available: result.available };
  writeFileAtomic(checkFile(env), `${JSON.stringify(record)}\n`, 0o600);
}

export function lastCheck(env: Readonly<Record<string, string | undefined>>): RememberedCheck | null {
  try {
    const record = JSON.parse(readFileSync(checkFile(env), "utf8")) as RememberedCheck;
    return typeof record.checked_at === "string" ? record : null;
  } catch {
    return null;
  }
}
