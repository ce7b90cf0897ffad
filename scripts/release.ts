// `bun run release -- --version V --channel C [--out DIR] [--base-url URL] [--targets k1,k2] [--replace]`
//
// Builds agent for every release target with Bun's cross-compilation (Bun fetches each target's runtime
// from the npm registry, @oven/bun-<os>-<arch>, and caches it under ~/.bun/install/cache), checks each
// binary (runs it when it can run here, else reads its header), and writes a release directory:
//
//   DIR/manifest.json          every release in DIR, the document `agent update` reads (docs/updates.md)
//   DIR/install.sh             installs the newest stable release (install.sh, with its location filled in)
//   DIR/V/agent-<key>[.exe]    the binaries
//   DIR/V/SHA256SUMS           `sha256sum -c` format
//   DIR/V/install.sh           installs V
//   DIR/V/npm/*.tgz            the npm packages: the launcher package and one per platform
//
// DIR (default dist/release) is meant to be served as it is at --base-url; manifest URLs are relative.
// The manifest is written last: a release that fails a build or a check is never listed.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compileAgent, compileProfiled, gitCommit, ROOT } from "../build.ts";
import { parseManifest, type Manifest } from "../src/update/manifest.ts";
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
  return {
    version,
    channel: channel as (typeof CHANNELS)[number],
    out: resolve(values.out ?? join(ROOT, "dist", "release")),
    baseUrl: baseUrl.replace(/\/+$/, ""),
    targets: TARGETS.filter((t) => wanted.includes(t.key)),
    replace: values.replace === true,
    json: values.json === true,
  };
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

function installScript(url: string, version: string): string {
  const template = readFileSync(join(ROOT, "install.sh"), "utf8");
  const filled = template.replace(/^DEFAULT_RELEASE_URL=""$/m, `DEFAULT_RELEASE_URL="${url}"`).replace(/^RELEASE_VERSION=""$/m, `RELEASE_VERSION="${version}"`);
  if (filled === template && url) throw new Error("install.sh has no DEFAULT_RELEASE_URL=\"\" line to fill in");
  return filled;
}

function readManifest(path: string): Manifest {
  if (!existsSync(path)) return { format: 1, releases: [] };
  return parseManifest(readFileSync(path, "utf8"), path);
}

async function main(): Promise<void> {
  const opts = options();
  const commit = gitCommit();
  const releaseDir = join(opts.out, opts.version);
  const log = (line: string) => opts.json || console.error(line);
  const manifestPath = join(opts.out, "manifest.json");
  // Refuse a broken manifest before spending minutes on builds.
  const manifest = readManifest(manifestPath);
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
    const order = await compileProfiled({ outfile: hostPath, version: opts.version, commit, ...(host ? { assetKey: host.key } : {}) }, join(scratch, "profile"));
    const built: { target: ReleaseTarget; path: string }[] = [];
    const checked: Checked[] = [];
    for (const target of opts.targets) {
      const path = join(releaseDir, fileName(target));
      if (target !== host) {
        log(`building ${target.key} (${target.bun})…`);
        await compileAgent({ outfile: path, target: target.bun, version: opts.version, commit, assetKey: target.key, bytecodeOrder: order });
      }
      const result = check(target, path, opts.version, commit);
      const entry = { key: target.key, file: fileName(target), size: statSync(path).size, sha256: sha256(path), check: result };
      log(`  ${entry.file}  ${(entry.size / 1e6).toFixed(1)} MB  ${result}`);
      checked.push(entry);
      built.push({ target, path });
    }
    writeFileSync(join(releaseDir, "SHA256SUMS"), checked.map((c) => `${c.sha256}  ${c.file}\n`).sort((a, b) => a.slice(66).localeCompare(b.slice(66))).join(""));

    const releaseUrl = opts.baseUrl ? `${opts.baseUrl}/${opts.version}` : "";
    writeFileSync(join(releaseDir, "install.sh"), installScript(releaseUrl, opts.version), { mode: 0o755 });

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
      writeFileSync(join(opts.out, "install.sh"), installScript(opts.baseUrl ? releaseUrl : "", opts.version), { mode: 0o755 });
    }
    writeFileAtomic(manifestPath, `${JSON.stringify({ format: 1, releases }, null, 2)}\n`, 0o644);

    const summary = { version: opts.version, channel: opts.channel, commit, dir: releaseDir, manifest: manifestPath, assets: checked, npm: tarballs.map((t) => join("npm", t)) };
    if (opts.json) console.log(JSON.stringify(summary, null, 2));
    else {
      const shown = (path: string) => (relative(process.cwd(), path).startsWith("..") ? path : relative(process.cwd(), path));
      console.log(`released agent ${opts.version} (${opts.channel}) in ${shown(releaseDir)}: ${checked.length} binaries, SHA256SUMS, install.sh, ${tarballs.length} npm packages; manifest ${shown(manifestPath)}`);
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
