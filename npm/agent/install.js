// The postinstall script of agent's npm package. On Linux and macOS, under npm, it replaces
// bin/agent.js (the Node launcher that npm's `agent` link points to) with this platform's binary, so
// `agent` starts the binary without starting Node first (Node's start saved on every run; docs/decisions-platform.md 33).
// It runs only the binary of the platform package npm installed beside it, and only after that binary's
// SHA-256 matched the one the release wrote into this package (binarySha256): a platform package from
// anywhere else is never run. It runs it with --version and replaces the launcher only when that prints
// this package's version. Anything else (Windows, where npm's shims
// call node; pnpm and yarn; no platform package; a binary that does not run; any error) leaves the
// launcher as it is. It never fails the install and prints nothing; with AGENT_POSTINSTALL_REPORT=FILE in
// the environment it appends its outcome (replaced, already, check failed, not npm, ...) to FILE.
"use strict";
const { execFileSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const LAUNCHER = path.join(__dirname, "bin", "agent.js");

/** npm, pnpm, yarn, bun: the tool that runs this script, from the user agent it sets. */
function packageManager() {
  return (process.env.npm_config_user_agent || "").split("/")[0];
}

/** Whether `<binary> --version` prints `agent <version> ...` and exits 0 within 15 s. */
function printsVersion(binary, version) {
  try {
    const out = execFileSync(binary, ["--version"], { stdio: ["ignore", "pipe", "ignore"], encoding: "utf8", timeout: 15000 });
    const words = out.trim().split(/\s+/);
    return words[0] === "agent" && words[1] === version;
  } catch {
    return false;
  }
}

/** Whether `binary` is the one the release packed beside this package (its platform package's checksum). */
function matchesRelease(binary, pkg) {
  const platformPackage = JSON.parse(fs.readFileSync(path.join(path.dirname(binary), "..", "package.json"), "utf8")).name;
  const expected = (pkg.binarySha256 || {})[platformPackage];
  return typeof expected === "string" && crypto.createHash("sha256").update(fs.readFileSync(binary)).digest("hex") === expected;
}

/** What was done, as one word (for the tests and for reading). */
function optimize() {
  // Windows: npm's .cmd and .ps1 shims run `node <file>`. pnpm writes shell shims that run `node <file>`
  // when the file had a node shebang at link time, and may link after this script; yarn may run this
  // script again from another platform on the same node_modules (esbuild skips yarn for that reason).
  if (process.platform === "win32") return "windows";
  if (packageManager() !== "npm") return "not npm";
  const { findBinary, pkg } = require("./lib/find-binary.js");
  const binary = findBinary();
  if (!binary) return "no binary";
  const source = fs.statSync(binary);
  const launcher = fs.statSync(LAUNCHER);
  // Run again (npm rebuild): the launcher is the binary already.
  if (launcher.ino === source.ino && launcher.dev === source.dev) return "already";
  if (!matchesRelease(binary, pkg)) return "checksum mismatch";
  if (!printsVersion(binary, pkg.version)) return "check failed";
  // Beside the launcher, then one rename: npm's link always points to a whole launcher or a whole binary.
  // rename() also leaves any other hard link to the launcher (pnpm's store) untouched.
  const temp = path.join(path.dirname(LAUNCHER), `.agent.js.${process.pid}.tmp`);
  try {
    try {
      fs.linkSync(binary, temp);
    } catch {
      // Another filesystem (or no hard links): a copy with the binary's mode.
      fs.copyFileSync(binary, temp);
      fs.chmodSync(temp, source.mode & 0o7777);
      if (fs.statSync(temp).size !== source.size) return "copy failed";
    }
    fs.renameSync(temp, LAUNCHER);
    return "replaced";
  } finally {
    try {
      fs.unlinkSync(temp);
    } catch {}
  }
}

if (require.main === module) {
  let outcome;
  try {
    outcome = optimize();
  } catch (error) {
    outcome = `error: ${error && error.message}`;
  }
  if (process.env.AGENT_POSTINSTALL_REPORT) {
    try {
      fs.appendFileSync(process.env.AGENT_POSTINSTALL_REPORT, `${outcome}\n`);
    } catch {}
  }
  process.exitCode = 0;
}

module.exports = { optimize };
