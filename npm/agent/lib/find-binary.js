// Where the binary of this platform is: the optional dependency <this package>-<platform>-<arch>[-musl]
// that npm installed beside this package. Used by the launcher (bin/agent.js) and by the postinstall
// script (install.js); nothing else, and it runs nothing.
"use strict";
const { existsSync } = require("node:fs");
const { dirname, join } = require("node:path");
const pkg = require("../package.json");

function isMusl() {
  if (process.platform !== "linux") return false;
  try {
    // Node reports the glibc it runs on; on musl there is none.
    process.report.excludeNetwork = true;
    return !process.report.getReport().header.glibcVersionRuntime;
  } catch {
    return existsSync("/lib/ld-musl-x86_64.so.1") || existsSync("/lib/ld-musl-aarch64.so.1");
  }
}

function candidates() {
  const key = `${process.platform}-${process.arch}`;
  return process.platform === "linux" ? [key, `${key}-musl`] : [key];
}

function binaryOf(key) {
  try {
    const binary = join(dirname(require.resolve(`${pkg.name}-${key}/package.json`)), "bin", process.platform === "win32" ? "agent.exe" : "agent");
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/** The binary's path, or null when no platform package that fits is installed. */
function findBinary() {
  const found = candidates().map(binaryOf);
  // npm honours the libc field and installs one Linux variant; an npm that ignores it installs both,
  // and only then is the C library asked (the report costs a few milliseconds).
  if (found[0] && found[1]) return isMusl() ? found[1] : found[0];
  return found[0] || found[1] || null;
}

/** What to print when findBinary() found nothing. */
function missingMessage() {
  const supported = Object.keys(pkg.optionalDependencies || {}).map((n) => n.slice(pkg.name.length + 1));
  const wanted = `${process.platform}-${process.arch}${isMusl() ? "-musl" : ""}`;
  return supported.includes(wanted)
    ? `agent: the binary for ${wanted} is missing: its package ${pkg.name}-${wanted} was not installed (optional dependencies skipped?). Reinstall with: npm install -g ${pkg.name}\n`
    : `agent: there is no agent build for ${wanted}; builds exist for ${supported.join(", ")}\n`;
}

module.exports = { findBinary, missingMessage, pkg };
