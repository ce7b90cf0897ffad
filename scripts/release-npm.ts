// The npm packages of a release, as esbuild and biome ship theirs: a main package (npm/agent: a small
// Node launcher, bin/agent.js, and a postinstall script, install.js, that replaces the launcher with the
// binary on Linux and macOS under npm) whose optional dependencies are one package per platform holding
// that platform's binary (<main>-<key>, with os/cpu/libc fields so npm installs only the one that fits).
// The main package is npm/agent as it is, with the version, the optional dependencies and the SHA-256 of
// each platform package's binary (`binarySha256`, which the postinstall checks before it runs one) filled in.
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ReleaseTarget } from "./release-targets.ts";

export const NPM_TEMPLATE = resolve(import.meta.dir, "..", "npm", "agent");

interface MainPackage {
  name: string;
  version: string;
  optionalDependencies: Record<string, string>;
  [key: string]: unknown;
}

export function mainPackageName(): string {
  return (JSON.parse(readFileSync(join(NPM_TEMPLATE, "package.json"), "utf8")) as MainPackage).name;
}

/** The tarball name `npm pack` gives a package (`@scope/name` -> `scope-name-<version>.tgz`). */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

function pack(dir: string, destination: string): void {
  const run = Bun.spawnSync(["npm", "pack", "--silent", "--pack-destination", destination], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`npm pack in ${dir} failed: ${run.stderr.toString().trim()}`);
}

export interface NpmBuild {
  version: string;
  /** The built targets with the path of each binary. */
  binaries: { target: ReleaseTarget; path: string }[];
  /** Scratch space for the package folders. */
  work: string;
  /** Where the tarballs go. */
  out: string;
}

/** Writes and packs the platform packages and the main package; returns the tarball names, main package first. */
export function buildNpmPackages(build: NpmBuild): string[] {
  mkdirSync(build.out, { recursive: true });
  const main = JSON.parse(readFileSync(join(NPM_TEMPLATE, "package.json"), "utf8")) as MainPackage;
  const tarballs: string[] = [];
  const optional: Record<string, string> = {};
  const checksums: Record<string, string> = {};
  for (const { target, path } of build.binaries) {
    const name = `${main.name}-${target.key}`;
    const dir = join(build.work, target.key);
    mkdirSync(join(dir, "bin"), { recursive: true });
    const binary = join(dir, "bin", target.os === "win32" ? "agent.exe" : "agent");
    copyFileSync(path, binary);
    chmodSync(binary, 0o755);
    const manifest = {
      name,
      version: build.version,
      description: `The ${target.key} binary of ${main.name}; install ${main.name}, not this package.`,
      license: main.license,
      os: [target.os],
      cpu: [target.cpu],
      ...(target.libc ? { libc: [target.libc] } : {}),
      files: ["bin/"],
      preferUnplugged: true,
    };
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(dir, "README.md"), `# ${name}\n\nThe ${target.key} binary of [${main.name}](https://www.npmjs.com/package/${main.name}). Install that package instead: \`npm install -g ${main.name}\`.\n`);
    pack(dir, build.out);
    tarballs.push(tarballName(name, build.version));
    optional[name] = build.version;
    checksums[name] = new Bun.CryptoHasher("sha256").update(readFileSync(binary)).digest("hex");
  }
  const dir = join(build.work, "main");
  cpSync(NPM_TEMPLATE, dir, { recursive: true });
  chmodSync(join(dir, "bin", "agent.js"), 0o755);
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ ...main, version: build.version, optionalDependencies: optional, binarySha256: checksums }, null, 2)}\n`);
  pack(dir, build.out);
  return [tarballName(main.name, build.version), ...tarballs];
}
