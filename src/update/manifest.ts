// The release manifest (docs/updates.md): a JSON document listing releases, each with a version, a
// channel and one asset per platform (URL, SHA-256, size). Validated before anything is downloaded;
// every problem names the field and what is allowed.
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { UPDATE_CHANNELS } from "../config/schema/session.ts";
import { compareVersions, parseVersion, type Version } from "./semver.ts";

export const MANIFEST_FORMAT = 1;

const Asset = Type.Object({
  url: Type.String({ minLength: 1, description: "Absolute, or relative to the manifest's URL." }),
  sha256: Type.String({ pattern: "^[0-9a-fA-F]{64}$" }),
  size: Type.Integer({ minimum: 1 }),
});

const Release = Type.Object({
  version: Type.String({ minLength: 1 }),
  channel: Type.Union(UPDATE_CHANNELS.map((c) => Type.Literal(c))),
  /** The commit the release was built from (informational; `agent --version` prints it too). */
  commit: Type.Optional(Type.String()),
  published_at: Type.Optional(Type.String()),
  notes_url: Type.Optional(Type.String()),
  // `linux-x64`, `darwin-arm64`, `win32-x64`, and libc variants such as `linux-arm64-musl`.
  assets: Type.Record(Type.String({ pattern: "^[a-z0-9]+-[a-z0-9_]+(-[a-z0-9]+)?$" }), Asset),
});

export const ManifestSchema = Type.Object({
  format: Type.Literal(MANIFEST_FORMAT),
  releases: Type.Array(Release),
});

export type Manifest = Static<typeof ManifestSchema>;
export type ReleaseEntry = Static<typeof Release>;
export type ReleaseAsset = Static<typeof Asset>;

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManifestError";
  }
}

/** `linux-x64`, `darwin-arm64`, ...: the key of this machine's asset. */
export function platformKey(platform: string = process.platform, arch: string = process.arch): string {
  return `${platform}-${arch}`;
}

export function parseManifest(text: string, source: string): Manifest {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ManifestError(`the release manifest at ${source} is not JSON`);
  }
  const first = Value.Errors(ManifestSchema, doc).First();
  if (first) {
    const where = first.path === "" ? "the document" : first.path.slice(1).replaceAll("/", ".");
    throw new ManifestError(`the release manifest at ${source} is invalid: ${where}: ${first.message}`);
  }
  const manifest = doc as Manifest;
  manifest.releases.forEach((r, i) => {
    if (!parseVersion(r.version)) throw new ManifestError(`the release manifest at ${source} is invalid: releases.${i}.version '${r.version}' is not a version like 1.2.3 or 1.3.0-beta.1`);
  });
  return manifest;
}

export interface Candidate {
  release: ReleaseEntry;
  version: Version;
  /** Present when the release has an asset for this platform. */
  asset: ReleaseAsset | null;
}

/**
 * The newest release the channel offers: `stable` sees stable releases only, `beta` sees both (so a
 * beta user moves on to a stable release that is newer than the last beta). Releases without an asset
 * for the platform are skipped.
 */
export function newestRelease(manifest: Manifest, channel: (typeof UPDATE_CHANNELS)[number], platform: string): Candidate | null {
  let best: Candidate | null = null;
  for (const release of manifest.releases) {
    if (channel === "stable" && release.channel !== "stable") continue;
    const asset = release.assets[platform];
    if (!asset) continue;
    const version = parseVersion(release.version)!;
    if (!best || compareVersions(version, best.version) > 0) best = { release, version, asset };
  }
  return best;
}
