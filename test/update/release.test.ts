// The release as a user meets it: `bun run release` builds every target once (beforeAll, about two
// minutes on two cores), the release directory is served on 127.0.0.1, and then: the binaries and
// SHA256SUMS on disk, npm tarballs installed into a temporary prefix with only node and npm on PATH,
// install.sh piped from curl, and `agent update` taking an older release binary to the newer one. The
// release is signed with a key made here, which the binaries are built to trust (AGENT_RELEASE_KEYS at
// build time); variants of the served directory are unsigned, forged or tampered with.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostTarget, TARGETS } from "../../scripts/release-targets.ts";
import { parseManifest } from "../../src/update/manifest.ts";
import { ROOT } from "../helpers/binary.ts";
import { nodeOnlyPath } from "../helpers/node-only-path.ts";

const host = hostTarget();
const OLD = "0.9.0";
const NEW = "1.0.0";
const NPM_MAIN = "agent-runtime-agent";
const work = mkdtempSync(join(tmpdir(), "agent-release-test-"));
const releases = join(work, "releases");
let server: ReturnType<typeof Bun.serve> | null = null;
let url = "";
/** The commit each release was built from (another commit may land between the two builds). */
let oldCommit = "";
let summary: { commit: string; signed_by: string[]; assets: { key: string; file: string; size: number; sha256: string; check: string }[]; npm: string[] };

// The release key: the private half is given to the release script, the public half built into the binaries.
const signingKey = generateKeyPairSync("ed25519");
const signingKeyFile = join(work, "release-signing.pem");
const trustedKeysFile = join(work, "release-trusted.pem");
writeFileSync(signingKeyFile, signingKey.privateKey.export({ type: "pkcs8", format: "pem" }) as string, { mode: 0o600 });
writeFileSync(trustedKeysFile, signingKey.publicKey.export({ type: "spki", format: "pem" }) as string);
const releaseEnv = { ...process.env, AGENT_RELEASE_KEYS: trustedKeysFile };

/** Leaves this file behind if the forged "binary" is ever run. */
const marker = join(work, "forged-binary-ran");
const forgedBinary = new TextEncoder().encode(`#!/bin/sh\ntouch '${marker}'\necho "agent ${NEW}"\n`);
const forgedSha = new Bun.CryptoHasher("sha256").update(forgedBinary).digest("hex");

/**
 * Serves the release directory, and variants of it: under /tampered/ every binary has one byte changed,
 * under /truncated/ only its first half is sent, under /unsigned/ there are no .sig files, and under
 * /forged/ every binary is a script that leaves a marker, with SHA256SUMS and the manifest rewritten to
 * its checksum (their signatures are the genuine ones).
 */
function serve(root: string) {
  const cache = new Map<string, Uint8Array>();
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = decodeURIComponent(new URL(req.url).pathname);
      const variant = /^\/(tampered|truncated|unsigned|forged)\//.exec(path)?.[1];
      const file = join(root, variant ? path.slice(variant.length + 2) : path.slice(1));
      if (file.includes("..") || !existsSync(file)) return new Response("not found", { status: 404 });
      if (variant === "unsigned" && file.endsWith(".sig")) return new Response("not found", { status: 404 });
      if (variant === "forged" && file.endsWith("/SHA256SUMS")) return new Response(readFileSync(file, "utf8").replace(/^[0-9a-f]{64}/gm, forgedSha));
      if (variant === "forged" && /\/agent-[^/]+$/.test(file)) return new Response(forgedBinary as Uint8Array<ArrayBuffer>);
      if (!variant || !/\/agent-[^/]+$/.test(file)) {
        // The manifest's asset URLs are relative, so they lead through the variant as they are; forged, they
        // carry the script's checksum and size (and the genuine signature no longer matches).
        if (variant === "forged" && file.endsWith("manifest.json")) {
          const text = readFileSync(file, "utf8").replace(/"sha256": "[0-9a-f]{64}"/g, `"sha256": "${forgedSha}"`).replace(/"size": \d+/g, `"size": ${forgedBinary.length}`);
          return new Response(text, { headers: { "content-type": "application/json" } });
        }
        return new Response(Bun.file(file));
      }
      const key = `${variant}:${file}`;
      if (!cache.has(key)) {
        const bytes = new Uint8Array(readFileSync(file));
        if (variant === "tampered") bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff;
        cache.set(key, variant === "truncated" ? bytes.slice(0, bytes.length >> 1) : bytes);
      }
      return new Response(cache.get(key)! as Uint8Array<ArrayBuffer>, { headers: { "content-type": "application/octet-stream" } });
    },
  });
}

function release(args: string[]) {
  const run = Bun.spawnSync(["bun", "run", "scripts/release.ts", ...args, "--signing-key", signingKeyFile, "--out", releases, "--json"], { cwd: ROOT, env: releaseEnv, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`release ${args.join(" ")} failed (exit ${run.exitCode}): ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout.toString());
}

async function run(cmd: string[], options: { env: Record<string, string>; cwd?: string; stdin?: string }) {
  const proc = Bun.spawn(cmd, { cwd: options.cwd ?? work, env: options.env, stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin), stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, out, err };
}

/** A home with an empty config and data dir; PATH holds only the system tools (no ~/.local/bin). */
function home(name: string, config = "") {
  const base = join(work, name);
  mkdirSync(join(base, "config", "agent"), { recursive: true });
  if (config) writeFileSync(join(base, "config", "agent", "config.yaml"), config);
  mkdirSync(join(base, "project", ".git"), { recursive: true });
  return { base, project: join(base, "project"), env: { PATH: "/usr/bin:/bin", HOME: base, XDG_CONFIG_HOME: join(base, "config"), XDG_DATA_HOME: join(base, "data"), SHELL: "/bin/bash" } };
}

const shortCommit = (commit: string) => commit.replace(/^([0-9a-f]{12})[0-9a-f]*/, "$1").replace("+modified", ", modified");
const versionLine = (v: string) => `agent ${v} (commit ${shortCommit(v === OLD ? oldCommit : summary.commit)})\n`;

beforeAll(() => {
  if (!host) return;
  server = serve(releases);
  url = `http://127.0.0.1:${server.port}`;
  // An older release for this machine only, then the new one for every target.
  oldCommit = release(["--version", OLD, "--channel", "stable", "--targets", host.key]).commit;
  summary = release(["--version", NEW, "--channel", "stable", "--base-url", url]);
}, 600_000);

afterAll(() => {
  server?.stop(true);
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!host)("bun run release", () => {
  test("writes every target's binary, checked: this machine's ran, the others by header", () => {
    const dir = join(releases, NEW);
    expect(summary.assets.map((a) => a.key).sort()).toEqual(TARGETS.map((t) => t.key).sort());
    const files = readdirSync(dir).sort();
    expect(files).toEqual([...TARGETS.map((t) => `agent-${t.key}${t.os === "win32" ? ".exe" : ""}`), "SHA256SUMS", "SHA256SUMS.sig", "install.sh", "npm"].sort());
    const headers: Record<string, string> = {
      "linux-x64": "elf x64 /lib64/ld-linux-x86-64.so.2",
      "linux-arm64": "elf arm64 /lib/ld-linux-aarch64.so.1",
      "linux-x64-musl": "elf x64 /lib/ld-musl-x86_64.so.1",
      "linux-arm64-musl": "elf arm64 /lib/ld-musl-aarch64.so.1",
      "darwin-x64": "macho x64 signed",
      "darwin-arm64": "macho arm64 signed",
      "win32-x64": "pe x64",
    };
    const checks = Object.fromEntries(summary.assets.map((a) => [a.key, a.check]));
    expect(checks).toEqual(Object.fromEntries(TARGETS.map((t) => [t.key, t.key === host!.key ? `ran: ${versionLine(NEW).trim()}` : `header: ${headers[t.key]}`])));
  });

  test("SHA256SUMS checks with sha256sum -c, and the manifest lists both releases with sizes and hashes", () => {
    const dir = join(releases, NEW);
    const check = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    expect(check.exitCode).toBe(0);
    // Both signatures verify with openssl as docs/updates.md shows: `ed25519 <key id> <base64>`.
    for (const signed of [join(dir, "SHA256SUMS"), join(releases, "manifest.json")]) {
      const [kind, id, signature] = readFileSync(`${signed}.sig`, "utf8").trim().split(" ");
      expect([kind, id]).toEqual(["ed25519", summary.signed_by[0]]);
      writeFileSync(join(work, "sig.bin"), Buffer.from(signature!, "base64"));
      const verified = Bun.spawnSync(["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", trustedKeysFile, "-rawin", "-in", signed, "-sigfile", join(work, "sig.bin")], { stdout: "pipe", stderr: "pipe" });
      expect(verified.stdout.toString()).toBe("Signature Verified Successfully\n");
    }
    expect(check.stdout.toString().trim().split("\n")).toHaveLength(TARGETS.length);
    const manifest = parseManifest(readFileSync(join(releases, "manifest.json"), "utf8"), "manifest.json");
    expect(manifest.releases.map((r) => r.version)).toEqual([NEW, OLD]);
    expect(manifest.releases[0]!.commit).toBe(summary.commit);
    for (const asset of summary.assets) {
      expect(manifest.releases[0]!.assets[asset.key]).toEqual({ url: `${NEW}/${asset.file}`, sha256: asset.sha256, size: asset.size });
    }
    expect(Object.keys(manifest.releases[1]!.assets)).toEqual([host!.key]);
  });

  test("a release that exists is not built again without --replace, and a bad version is refused", () => {
    for (const [args, message] of [
      [["--version", OLD, "--channel", "stable"], `${join(releases, OLD)} exists; pass --replace`],
      [["--version", "1.0", "--channel", "stable"], "--version '1.0' is not a version like 1.2.3"],
      [["--version", "2.0.0", "--channel", "nightly"], "--channel 'nightly' is not stable or beta"],
      [["--version", "2.0.0", "--channel", "beta", "--targets", "linux-riscv64"], "unknown target linux-riscv64"],
    ] as const) {
      const r = Bun.spawnSync(["bun", "run", "scripts/release.ts", ...args, "--signing-key", signingKeyFile, "--out", releases], { cwd: ROOT, env: releaseEnv, stdout: "pipe", stderr: "pipe" });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.toString()).toContain(message);
    }
  });

  test("a release is never unsigned, nor signed with a key the binaries would not trust", () => {
    const other = join(work, "other-signing.pem");
    writeFileSync(other, generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }) as string);
    const attempt = (extra: string[], env: Record<string, string | undefined>) => {
      const r = Bun.spawnSync(["bun", "run", "scripts/release.ts", "--version", "2.0.0", "--channel", "stable", "--out", releases, ...extra], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
      return { code: r.exitCode, err: r.stderr.toString() };
    };
    const { AGENT_RELEASE_SIGNING_KEY: _, ...noKey } = releaseEnv as Record<string, string | undefined>;
    expect(attempt([], noKey)).toEqual({ code: 2, err: "release: a release must be signed: pass --signing-key FILE (an Ed25519 private key in PEM) or set AGENT_RELEASE_SIGNING_KEY to the key itself (docs/updates.md, Signed releases)\n" });
    const untrusted = attempt(["--signing-key", other], releaseEnv);
    expect(untrusted.code).toBe(2);
    expect(untrusted.err).toMatch(/^release: the signing key [0-9a-f]{16} from \S+ is not one the binaries trust \([0-9a-f]{16}\); add its public half to release-keys\.pem first/);
    expect(existsSync(join(releases, "2.0.0"))).toBe(false);
  });
});

describe.skipIf(!host)("npm install -g from the release's tarballs", () => {
  function npmInstall(prefix: string, tarballs: string[]) {
    const env = { PATH: nodeOnlyPath(work), HOME: join(work, "npm-home"), npm_config_cache: join(work, "npm-cache") };
    const r = Bun.spawnSync(["npm", "install", "-g", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, ...tarballs.map((t) => join(releases, NEW, "npm", t))], { env, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`npm install failed: ${r.stderr}`);
    return env;
  }

  test("the launcher package and this platform's package give a working agent", async () => {
    expect(summary.npm.map((p) => p.replace(/^npm\//, "")).sort()).toEqual([`${NPM_MAIN}-${NEW}.tgz`, ...TARGETS.map((t) => `${NPM_MAIN}-${t.key}-${NEW}.tgz`)].sort());
    const prefix = join(work, "npm-prefix");
    const env = npmInstall(prefix, [`${NPM_MAIN}-${NEW}.tgz`, `${NPM_MAIN}-${host!.key}-${NEW}.tgz`]);
    const agent = join(prefix, "bin", "agent");
    const h = home("npm-user");
    const userEnv = { ...h.env, PATH: `${join(prefix, "bin")}:${env.PATH}` };
    const version = await run(["agent", "--version"], { env: userEnv });
    expect(version).toEqual({ code: 0, out: versionLine(NEW), err: "" });
    const exec = await run([agent, "exec", "--demo", "hello"], { env: userEnv, cwd: h.project });
    expect(exec.code).toBe(0);
    expect(exec.out.length).toBeGreaterThan(0);
    // Exit codes come through the launcher.
    const bad = await run([agent, "no-such-command"], { env: userEnv });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("no-such-command");
    // Installed by npm, the binary is npm's to update.
    const h2 = home("npm-update", `updates: { manifest_url: "${url}/manifest.json" }\n`);
    const update = await run([agent, "update"], { env: { ...h2.env, PATH: userEnv.PATH }, cwd: h2.project });
    expect(update.code).not.toBe(0);
    expect(update.err).toContain("was installed with npm");
    expect(update.err).toContain("npm install -g @agent-runtime/agent@latest");
  }, 120_000);

  test("without its platform package the launcher says which package is missing", async () => {
    const prefix = join(work, "npm-prefix-bare");
    const env = npmInstall(prefix, [`${NPM_MAIN}-${NEW}.tgz`]);
    const r = await run([join(prefix, "bin", "agent"), "--version"], { env });
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toBe(`agent: the binary for ${host!.key} is missing: its package @agent-runtime/agent-${host!.key} was not installed (optional dependencies skipped?). Reinstall with: npm install -g @agent-runtime/agent\n`);
  }, 120_000);
});

describe.skipIf(!host)("install.sh", () => {
  test("piped from curl, installs this machine's binary into ~/.local/bin and says how to put it on PATH", async () => {
    const h = home("script-user");
    const script = await (await fetch(`${url}/install.sh`)).text();
    const r = await run(["sh"], { env: h.env, stdin: script });
    const dir = join(h.base, ".local", "bin");
    expect(r.err).toBe("");
    expect(r.out).toBe(
      `downloading ${url}/${NEW}/agent-${host!.key}\ninstalled ${versionLine(NEW).trim()} to ${dir}/agent\n` +
        `${dir} is not on your PATH. Add it (then open a new terminal):\n  echo 'export PATH="${dir}:$PATH"' >> ~/.bashrc\n`,
    );
    expect(r.code).toBe(0);
    expect(readdirSync(dir)).toEqual(["agent"]);
    expect((await run([join(dir, "agent"), "--version"], { env: h.env })).out).toBe(versionLine(NEW));
  }, 60_000);

  test("--dir installs elsewhere, and AGENT_RELEASE_URL picks another release", async () => {
    const h = home("script-dir");
    const dir = join(h.base, "tools");
    const r = await run(["sh", join(releases, "install.sh"), "--dir", dir], { env: { ...h.env, PATH: `${dir}:${h.env.PATH}`, AGENT_RELEASE_URL: `${url}/${OLD}` } });
    expect(r.code).toBe(0);
    expect(r.out).toBe(`downloading ${url}/${OLD}/agent-${host!.key}\ninstalled ${versionLine(OLD).trim()} to ${dir}/agent\nrun: agent\n`);
    expect((await run(["agent", "--version"], { env: { ...h.env, PATH: `${dir}:${h.env.PATH}` } })).out).toBe(versionLine(OLD));
  }, 60_000);

  test("a binary whose SHA-256 does not match is refused and nothing is installed", async () => {
    const h = home("script-tampered");
    const r = await run(["sh", join(releases, "install.sh")], { env: { ...h.env, AGENT_RELEASE_URL: `${url}/tampered/${NEW}` } });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^agent install: the download's SHA-256 is [0-9a-f]{64}, not [0-9a-f]{64} as the signed SHA256SUMS says; nothing was installed\n$/);
    expect(existsSync(join(h.base, ".local"))).toBe(false);
  }, 60_000);

  test("a release whose SHA256SUMS is unsigned, or changed after it was signed, is refused: the forged binary never runs", async () => {
    for (const [variant, refusal] of [
      ["unsigned", `agent install: ${url}/unsigned/${NEW}/SHA256SUMS is not signed (cannot download ${url}/unsigned/${NEW}/SHA256SUMS.sig); nothing was installed\n`],
      ["forged", `agent install: the signature of ${url}/forged/${NEW}/SHA256SUMS by key ${summary.signed_by[0]} does not match it (changed after it was signed, or this openssl cannot check Ed25519: OpenSSL 3.0 or newer can); nothing was installed\n`],
    ] as const) {
      const h = home(`script-${variant}`);
      const r = await run(["sh", join(releases, "install.sh")], { env: { ...h.env, AGENT_RELEASE_URL: `${url}/${variant}/${NEW}` } });
      expect({ code: r.code, err: r.err }).toEqual({ code: 1, err: refusal });
      expect(existsSync(join(h.base, ".local"))).toBe(false);
    }
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  test("plain http to another host is refused before anything is fetched (here it would reach the release through a proxy)", async () => {
    const h = home("script-http");
    const r = await run(["sh", join(releases, "install.sh")], { env: { ...h.env, http_proxy: url, AGENT_RELEASE_URL: `http://releases.example.com/forged/${NEW}` } });
    expect(r).toEqual({ code: 1, out: "", err: `agent install: refusing http://releases.example.com/forged/${NEW}: plain http is allowed only to this machine (localhost, 127.0.0.1, [::1]); use https\n` });
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(h.base, ".local"))).toBe(false);
  }, 60_000);

  test("an unsupported OS or processor gets a clear message, a platform the release lacks names what it has", async () => {
    const h = home("script-platforms");
    const fakeBin = join(h.base, "fake-bin");
    mkdirSync(fakeBin);
    const answer = async (os: string, cpu: string, release = NEW) => {
      writeFileSync(join(fakeBin, "uname"), `#!/bin/sh\ncase "$1" in -s) echo ${os};; -m) echo ${cpu};; esac\n`);
      chmodSync(join(fakeBin, "uname"), 0o755);
      return run(["sh", join(releases, "install.sh")], { env: { ...h.env, PATH: `${fakeBin}:${h.env.PATH}`, AGENT_RELEASE_URL: `${url}/${release}` } });
    };
    expect(await answer("FreeBSD", "amd64")).toEqual({ code: 1, out: "", err: "agent install: agent has no build for the operating system 'FreeBSD' (builds exist for Linux and macOS, x64 and arm64, and Windows x64 through npm)\n" });
    expect(await answer("Linux", "riscv64")).toEqual({ code: 1, out: "", err: "agent install: agent has no build for the processor 'riscv64' on Linux (builds exist for x64 and arm64)\n" });
    expect(await answer("MINGW64_NT-10.0", "x86_64")).toEqual({ code: 1, out: "", err: "agent install: this script installs on Linux and macOS; on Windows install with npm: npm install -g @agent-runtime/agent\n" });
    const other = host!.cpu === "x64" ? "aarch64" : "x86_64";
    const otherKey = `linux-${host!.cpu === "x64" ? "arm64" : "x64"}`;
    expect(await answer("Linux", other, OLD)).toEqual({ code: 1, out: "", err: `agent install: this release has no build for ${otherKey} (it has: ${host!.key})\n` });
    expect(existsSync(join(h.base, ".local"))).toBe(false);
  }, 60_000);
});

describe.skipIf(!host)("agent update against the served release directory", () => {
  function installedOld(name: string, manifest: string) {
    const h = home(name, `updates: { manifest_url: "${manifest}" }\n`);
    const dir = join(h.base, "bin");
    mkdirSync(dir);
    const agent = join(dir, "agent");
    copyFileSync(join(releases, OLD, `agent-${host!.key}`), agent);
    chmodSync(agent, 0o755);
    return { ...h, dir, agent };
  }

  test("an older release binary finds the newer one and replaces itself", async () => {
    const u = installedOld("update-ok", `${url}/manifest.json`);
    const check = await run([u.agent, "update", "--check"], { env: u.env, cwd: u.project });
    expect(check).toEqual({ code: 0, out: `agent ${NEW} is available (you have ${OLD}; channel stable); run \`agent update\` to install it\n`, err: "" });
    const r = await run([u.agent, "update"], { env: u.env, cwd: u.project });
    expect(r.code).toBe(0);
    expect(r.out).toBe(`updated ${u.agent}: ${OLD} -> ${NEW}\n`);
    expect((await run([u.agent, "--version"], { env: u.env })).out).toBe(versionLine(NEW));
    expect(readdirSync(u.dir)).toEqual(["agent"]);
    expect(new Bun.CryptoHasher("sha256").update(readFileSync(u.agent)).digest("hex")).toBe(summary.assets.find((a) => a.key === host!.key)!.sha256);
    const again = await run([u.agent, "update"], { env: u.env, cwd: u.project });
    expect(again).toEqual({ code: 0, out: `agent ${NEW} is up to date (newest on the stable channel: ${NEW})\n`, err: "" });
  }, 120_000);

  for (const [variant, refusal] of [
    ["unsigned", /agent: the release manifest at \S+ is not signed \(\S+manifest\.json\.sig answered HTTP 404\); agent installs only releases signed with a key it trusts/],
    ["forged", /agent: refusing the update: the signature of the release manifest at \S+ by key [0-9a-f]{16} does not match its content/],
    ["tampered", /update failed: the download's SHA-256 is [0-9a-f]{64}, not the manifest's [0-9a-f]{64}; the installed binary is unchanged/],
    ["truncated", /update failed: the download was interrupted after \d+ of \d+ bytes; the installed binary is unchanged/],
  ] as const) {
    test(`${variant === "unsigned" ? "an unsigned manifest" : variant === "forged" ? "a manifest changed after signing" : `a ${variant} download`} is refused and the old binary keeps working`, async () => {
      const u = installedOld(`update-${variant}`, `${url}/${variant}/manifest.json`);
      const before = readFileSync(u.agent);
      const r = await run([u.agent, "update"], { env: u.env, cwd: u.project });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(refusal);
      expect(readdirSync(u.dir)).toEqual(["agent"]);
      expect(readFileSync(u.agent).equals(before)).toBe(true);
      expect((await run([u.agent, "--version"], { env: u.env })).out).toBe(versionLine(OLD));
      const exec = await run([u.agent, "exec", "--demo", "hello"], { env: u.env, cwd: u.project });
      expect(exec.code).toBe(0);
      expect(existsSync(marker)).toBe(false);
    }, 120_000);
  }
});

test("the release location is only filled into the served install.sh, the repository's stays empty", () => {
  const template = readFileSync(join(ROOT, "install.sh"), "utf8");
  expect(template).toContain('\nDEFAULT_RELEASE_URL=""\n');
  if (!host) return;
  const served = readFileSync(join(releases, "install.sh"), "utf8");
  expect(served).toContain(`\nDEFAULT_RELEASE_URL="${url}/${NEW}"\nRELEASE_VERSION="${NEW}"\nRELEASE_SUMS='${readFileSync(join(releases, NEW, "SHA256SUMS"), "utf8").trimEnd()}'\nRELEASE_KEYS='${summary.signed_by[0]} `);
  expect(readFileSync(join(releases, OLD, "install.sh"), "utf8")).toContain('\nDEFAULT_RELEASE_URL=""\n');
});
