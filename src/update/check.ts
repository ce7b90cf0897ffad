// One update check: fetch the manifest and its signature (https, or http to this machine only), verify
// the signature against the keys this agent trusts before reading anything in it, pick the channel's
// newest release for this platform, compare it with the installed version, and remember the answer in
// `<data root>/update-check.json` (the launch notice reads it on the next run).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { dataRoot } from "../config/files.ts";
import type { UPDATE_CHANNELS } from "../config/schema/session.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { BUILD_ASSET } from "../version.ts";
import { ManifestError, newestRelease, parseManifest, platformKey, type ReleaseAsset } from "./manifest.ts";
import type { TrustedKey } from "./release-keys.ts";
import { insecureUrlProblem } from "./secure-url.ts";
import { SIGNATURE_SUFFIX, SignatureError, verifySignature } from "./signature.ts";
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
  /** The keys a manifest signature must be made with (release-keys.ts trustedKeys). */
  trustedKeys: readonly TrustedKey[];
  fetch?: typeof fetch;
}

function signatureUrl(manifestUrl: string): string {
  const url = new URL(manifestUrl);
  url.pathname += SIGNATURE_SUFFIX;
  return url.href;
}

/** The body of `url`, from https or loopback http only (redirects included). */
async function fetchBytes(url: string, what: string, doFetch: typeof fetch): Promise<{ status: number; bytes: Uint8Array }> {
  const problem = insecureUrlProblem(url, what);
  if (problem) throw new ManifestError(problem);
  let response: Response;
  try {
    response = await doFetch(url, { signal: AbortSignal.timeout(MANIFEST_TIMEOUT_MS) });
  } catch (error) {
    throw new ManifestError(`cannot fetch ${what} at ${url} (${(error as Error).name === "TimeoutError" ? "timed out" : "not reachable"})`);
  }
  const redirected = response.url && response.url !== url ? insecureUrlProblem(response.url, `${what} (redirected from ${url})`) : null;
  if (redirected) throw new ManifestError(redirected);
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
}

export async function checkForUpdate(options: CheckOptions): Promise<CheckResult> {
  const doFetch = options.fetch ?? fetch;
  const manifestUrl = options.manifestUrl;
  const body = await fetchBytes(manifestUrl, "the release manifest", doFetch);
  if (body.status !== 200) throw new ManifestError(`the release manifest at ${manifestUrl} answered HTTP ${body.status}`);
  const sigUrl = signatureUrl(manifestUrl);
  const sig = await fetchBytes(sigUrl, "the release manifest's signature", doFetch);
  if (sig.status !== 200) throw new ManifestError(`the release manifest at ${manifestUrl} is not signed (${sigUrl} answered HTTP ${sig.status}); agent installs only releases signed with a key it trusts`);
  try {
    verifySignature(body.bytes, new TextDecoder().decode(sig.bytes), options.trustedKeys, `the release manifest at ${manifestUrl}`);
  } catch (error) {
    if (error instanceof SignatureError) throw new ManifestError(`refusing the update: ${error.message}`);
    throw error;
  }
  const manifest = parseManifest(new TextDecoder().decode(body.bytes), manifestUrl);
  // A release binary knows the asset it was built as (a musl build looks for the musl asset).
  const platform = options.platform ?? BUILD_ASSET ?? platformKey();
  const current = parseVersion(options.current);
  if (!current) throw new ManifestError(`the installed version '${options.current}' is not a version like 1.2.3`);
  const best = newestRelease(manifest, options.channel, platform);
  const available = best !== null && compareVersions(best.version, current) > 0;
  const asset = best?.asset ? { ...best.asset, url: new URL(best.asset.url, manifestUrl).href } : null;
  const assetProblem = asset && insecureUrlProblem(asset.url, `the download of agent ${best!.release.version}`);
  if (assetProblem) throw new ManifestError(assetProblem);
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
