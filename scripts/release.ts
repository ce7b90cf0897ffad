// `bun run release -- --version V --channel C --signing-key FILE [--out DIR] [--base-url URL] [--targets k1,k2] [--replace]`
//
// Builds agent for every release target with Bun's cross-compilation (Bun fetches each target's runtime
// from the npm registry, @oven/bun-<os>-<arch>, and caches it under ~/.bun/install/cache), checks each
// binary (runs it when it can run here, else reads its header), and writes a release directory:
//
//   DIR/manifest.json          every release in DIR, the document `agent update` reads (docs/updates.md)
//   DIR/manifest.json.sig      its Ed25519 signature, one line per signing key (src/update/signature.ts)
//   DIR/install.sh             installs the newest stable release (install.sh, with its location, checksums and keys filled in)
//   DIR/V/agent-<key>[.exe]    the binaries
//   DIR/V/SHA256SUMS           `sha256sum -c` format, and SHA256SUMS.sig
//   DIR/V/install.sh           installs V
//   DIR/V/npm/*.tgz            the npm packages: the launcher package and one per platform
//
// The signing keys (Ed25519 private keys, PEM) come from --signing-key FILE (repeatable) or the
// AGENT_RELEASE_SIGNING_KEY variable (the PEM text itself, one or more keys); they are never stored in the
// repository. Each must be one of the keys the binaries are built to trust (release-keys.pem, plus the
// AGENT_RELEASE_KEYS file), so every release can be verified by the binaries it ships.
//
// DIR (default dist/release) is meant to be served as it is at --base-url; manifest URLs are relative.
// The manifest is written last: a release that fails a build or a check is never listed.
import { createPrivateKey, type KeyObject } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compileAgent, compileProfiled, gitCommit, ROOT } from "../build.ts";
import { parseManifest, type Manifest } from "../src/update/manifest.ts";
import { buildKeyPems, keyId, toTrustedKeys, type TrustedKey } from "../src/update/release-keys.ts";
import { SIGNATURE_SUFFIX, signatureFile, verifySignature } from "../src/update/signature.ts";
import { compareVersions, parseVersion } from "../src/update/semver.ts";
import { writeFileAtomic } from "../src/util/atomic-write.ts";
import { versionLine } from "../src/version.ts";
import { buildNpmPackages } from "./release-npm.ts";
import { embeddedBuildInfo, fileName, headerProblem, hostTarget, readHeader, runsHere, TARGETS, type ReleaseTarget } from "./release-targets.ts";

const CHANNELS = ["stable", "beta"] as const;

function fail(message: string): never {
  console.error(`release: ${message}`);
  process.exit(2);
}

function options() {
  const argv = process.argv.slice(2);
  const { values } = parseArgs({
    args: argv[0] === "--" ? argv.slice(1) : argv,
    options: {
      version: { type: "string" },
      channel: { type: "string" },
      out: { type: "string" },
      "base-url": { type: "string" },
      targets: { type: "string" },
      replace: { type: "boolean" },
      json: { type: "boolean" },
      "signing-key": { type: "string", multiple: true },
    },
    strict: true,
  });
  const version = values.version ?? fail("--version V is required (a version like 1.2.3 or 1.3.0-beta.1)");
  if (!parseVersion(version) || version.startsWith("v")) fail(`--version '${version}' is not a version like 1.2.3 or 1.3.0-beta.1`);
  const channel = values.channel ?? fail(`--channel is required (${CHANNELS.join(" or ")})`);
  if (!(CHANNELS as readonly string[]).includes(channel)) fail(`--channel '${channel}' is not ${CHANNELS.join(" or ")}`);
  const wanted = values.targets?.split(",").map((k) => k.trim()) ?? TARGETS.map((t) => t.key);
  const unknown = wanted.filter((k) => !TARGETS.some((t) => t.key === k));
  if (unknown.length) fail(`unknown target ${unknown.join(", ")} (targets: ${TARGETS.map((t) => t.key).join(", ")})`);
  const baseUrl = values["base-url"] ?? process.env.AGENT_RELEASE_BASE_URL ?? "";
  if (baseUrl && !/^https?:\/\//.test(baseUrl)) fail(`--base-url '${baseUrl}' is not an http(s) URL`);
  const trusted = (() => {
    try {
      return buildKeyPems(process.env);
    } catch (error) {
      return fail((error as Error).message);
    }
  })();
  return {
    version,
    signingKeys: signingKeys(values["signing-key"] ?? [], toTrustedKeys(trusted)),
    trusted,
    channel: channel as (typeof CHANNELS)[number],
    out: resolve(values.out ?? join(ROOT, "dist", "release")),
    baseUrl: baseUrl.replace(/\/+$/, ""),
    targets: TARGETS.filter((t) => wanted.includes(t.key)),
    replace: values.replace === true,
    json: values.json === true,
  };
}

const PRIVATE_BLOCK = /-----BEGIN PRIVATE KEY-----[\s\S]*?-----END PRIVATE KEY-----/g;

/** The keys to sign with: each an Ed25519 private key whose public half the binaries will trust. */
function signingKeys(files: string[], trusted: TrustedKey[]): KeyObject[] {
  const sources = files.map((file) => {
    try {
      return { text: readFileSync(file, "utf8"), from: file };
    } catch (error) {
      return fail(`--signing-key ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`);
    }
  });
  if (sources.length === 0 && process.env.AGENT_RELEASE_SIGNING_KEY) sources.push({ text: process.env.AGENT_RELEASE_SIGNING_KEY, from: "AGENT_RELEASE_SIGNING_KEY" });
  if (sources.length === 0) fail("a release must be signed: pass --signing-key FILE (an Ed25519 private key in PEM) or set AGENT_RELEASE_SIGNING_KEY to the key itself (docs/updates.md, Signed releases)");
  const keys = sources.flatMap(({ text, from }) => {
    const blocks = text.match(PRIVATE_BLOCK) ?? fail(`${from} holds no '-----BEGIN PRIVATE KEY-----' block (make one with: openssl genpkey -algorithm ed25519)`);
    return blocks.map((pem) => {
      let key: KeyObject;
      try {
        key = createPrivateKey(pem);
      } catch {
        return fail(`${from} is not a readable private key`);
      }
      if (key.asymmetricKeyType !== "ed25519") fail(`${from} is a ${key.asymmetricKeyType} key; release keys are ed25519`);
      if (!trusted.some((t) => t.id === keyId(key))) {
        fail(`the signing key ${keyId(key)} from ${from} is not one the binaries trust (${trusted.map((t) => t.id).join(", ") || "none"}); add its public half to release-keys.pem first (openssl pkey -in KEY -pubout)`);
      }
      return key;
    });
  });
  return keys;
}

/** Writes `<path>.sig` for the bytes of `path`. */
function signFile(path: string, keys: readonly KeyObject[]): void {
  writeFileAtomic(`${path}${SIGNATURE_SUFFIX}`, signatureFile(readFileSync(path), keys), 0o644);
}

const sha256 = (path: string) => new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");

interface Checked {
  key: string;
  file: string;
  size: number;
  sha256: string;
  check: string;
}

function check(target: ReleaseTarget, path: string, version: string, commit: string): string {
  const header = readHeader(path);
  const problem = headerProblem(target, header);
  if (problem) throw new Error(`${fileName(target)} ${problem}`);
  const info = embeddedBuildInfo(version, commit, target);
  if (!readFileSync(path).includes(info)) throw new Error(`${fileName(target)} does not hold ${info} (the build info src/version.ts reads; a new Bun may write it differently)`);
  const expected = versionLine(version, commit);
  const described = `${header.format} ${header.cpu}${header.interpreter ? ` ${header.interpreter}` : ""}${header.signed ? " signed" : ""}`;
  if (!runsHere(target, header)) return `header: ${described}`;
  const run = Bun.spawnSync([path, "--version"], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeout: 30_000 });
  const printed = run.stdout.toString().trim();
  if (run.exitCode !== 0 || printed !== expected) throw new Error(`${fileName(target)} --version printed '${printed}' (exit ${run.exitCode}), not '${expected}': ${run.stderr.toString().trim()}`);
  return `ran: ${printed}`;
}

/** install.sh with the release's location, version, checksums and the trusted keys (id and base64 DER) written in. */
function installScript(url: string, version: string, sums: string, trusted: TrustedKey[]): string {
  const template = readFileSync(join(ROOT, "install.sh"), "utf8");
  const keys = trusted.map((t) => `${t.id} ${t.key.export({ type: "spki", format: "der" }).toString("base64")}`).join("\n");
  let filled = template;
  for (const [line, value] of [
    ['DEFAULT_RELEASE_URL=""', `DEFAULT_RELEASE_URL="${url}"`],
    ['RELEASE_VERSION=""', `RELEASE_VERSION="${version}"`],
    ["RELEASE_SUMS=''", `RELEASE_SUMS='${sums.trimEnd()}'`],
    ["RELEASE_KEYS=''", `RELEASE_KEYS='${keys}'`],
  ]) {
    if (!filled.includes(`\n${line}\n`)) throw new Error(`install.sh has no ${line} line to fill in`);
    filled = filled.replace(`\n${line}\n`, () => `\n${value}\n`);
  }
  return filled;
}

/** The manifest DIR has so far; it is signed again with this release, so its own signature must hold. */
function readManifest(path: string, trusted: TrustedKey[]): Manifest {
  if (!existsSync(path)) return { format: 1, releases: [] };
  const bytes = readFileSync(path);
  const sig = `${path}${SIGNATURE_SUFFIX}`;
  if (!existsSync(sig)) fail(`${path} has no signature (${sig}); sign it or move it away before adding a release to it`);
  try {
    verifySignature(bytes, readFileSync(sig, "utf8"), trusted, path);
  } catch (error) {
    fail(`${(error as Error).message}; refusing to sign it again`);
  }
  return parseManifest(bytes.toString("utf8"), path);
}

async function main(): Promise<void> {
  const opts = options();
  const commit = gitCommit();
  const releaseDir = join(opts.out, opts.version);
  const log = (line: string) => opts.json || console.error(line);
  const manifestPath = join(opts.out, "manifest.json");
  // Refuse a broken manifest before spending minutes on builds.
  const trusted = toTrustedKeys(opts.trusted);
  const manifest = readManifest(manifestPath, trusted);
  if (existsSync(releaseDir)) {
    if (!opts.replace) fail(`${releaseDir} exists; pass --replace to build version ${opts.version} again`);
    rmSync(releaseDir, { recursive: true, force: true });
  }
  mkdirSync(releaseDir, { recursive: true });
  const expected = versionLine(opts.version, commit);
  if (commit.endsWith("+modified")) log(`warning: the tree has uncommitted changes; the binaries say '${expected}'`);

  const scratch = mkdtempSync(join(tmpdir(), "agent-release-"));
  try {
    // The host build comes first: it runs, and its profile lays out every target's bytecode.
    const host = hostTarget();
    const hostPath = host && opts.targets.includes(host) ? join(releaseDir, fileName(host)) : join(scratch, "agent-host");
    log(`building ${host?.key ?? "this machine"} (profiled)…`);
    const order = await compileProfiled({ outfile: hostPath, version: opts.version, commit, releaseKeys: opts.trusted, ...(host ? { assetKey: host.key } : {}) }, join(scratch, "profile"));
    const built: { target: ReleaseTarget; path: string }[] = [];
    const checked: Checked[] = [];
    for (const target of opts.targets) {
      const path = join(releaseDir, fileName(target));
      if (target !== host) {
        log(`building ${target.key} (${target.bun})…`);
        await compileAgent({ outfile: path, target: target.bun, version: opts.version, commit, assetKey: target.key, bytecodeOrder: order, releaseKeys: opts.trusted });
      }
      const result = check(target, path, opts.version, commit);
      const entry = { key: target.key, file: fileName(target), size: statSync(path).size, sha256: sha256(path), check: result };
      log(`  ${entry.file}  ${(entry.size / 1e6).toFixed(1)} MB  ${result}`);
      checked.push(entry);
      built.push({ target, path });
    }
    const sums = checked.map((c) => `${c.sha256}  ${c.file}\n`).sort((a, b) => a.slice(66).localeCompare(b.slice(66))).join("");
    writeFileSync(join(releaseDir, "SHA256SUMS"), sums);
    signFile(join(releaseDir, "SHA256SUMS"), opts.signingKeys);

    const releaseUrl = opts.baseUrl ? `${opts.baseUrl}/${opts.version}` : "";
    writeFileSync(join(releaseDir, "install.sh"), installScript(releaseUrl, opts.version, sums, trusted), { mode: 0o755 });

    log("packing the npm packages…");
    const tarballs = buildNpmPackages({ version: opts.version, binaries: built, work: join(scratch, "npm"), out: join(releaseDir, "npm") });

    const release = {
      version: opts.version,
      channel: opts.channel,
      commit,
      published_at: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      assets: Object.fromEntries(checked.map((c) => [c.key, { url: `${opts.version}/${c.file}`, sha256: c.sha256, size: c.size }])),
    };
    const releases = [...manifest.releases.filter((r) => r.version !== opts.version), release];
    releases.sort((a, b) => compareVersions(parseVersion(b.version)!, parseVersion(a.version)!));
    if (opts.channel === "stable" && releases.find((r) => r.channel === "stable") === release) {
      writeFileSync(join(opts.out, "install.sh"), installScript(opts.baseUrl ? releaseUrl : "", opts.version, sums, trusted), { mode: 0o755 });
    }
    // The signature first: a reader between the two renames finds a mismatch and refuses (never an unsigned change).
    const manifestText = `${JSON.stringify({ format: 1, releases }, null, 2)}\n`;
    writeFileAtomic(`${manifestPath}${SIGNATURE_SUFFIX}`, signatureFile(Buffer.from(manifestText), opts.signingKeys), 0o644);
    writeFileAtomic(manifestPath, manifestText, 0o644);

    const signedBy = opts.signingKeys.map(keyId);
    const summary = { version: opts.version, channel: opts.channel, commit, dir: releaseDir, manifest: manifestPath, signed_by: signedBy, assets: checked, npm: tarballs.map((t) => join("npm", t)) };
    if (opts.json) console.log(JSON.stringify(summary, null, 2));
    else {
      const shown = (path: string) => (relative(process.cwd(), path).startsWith("..") ? path : relative(process.cwd(), path));
      console.log(`released agent ${opts.version} (${opts.channel}) in ${shown(releaseDir)}: ${checked.length} binaries, SHA256SUMS, install.sh, ${tarballs.length} npm packages; manifest ${shown(manifestPath)}, signed by key ${signedBy.join(", ")}`);
    }
  } catch (error) {
    console.error(`release: ${(error as Error).message}`);
    console.error(`release: ${opts.version} is not in ${manifestPath}; ${releaseDir} holds what was built so far`);
    process.exit(1);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
