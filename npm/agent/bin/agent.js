#!/usr/bin/env node
// The npm launcher of agent: finds the binary in the optional dependency for this platform
// (<this package>-<platform>-<arch>[-musl]) and runs it with the same arguments, standard streams and
// exit status. scripts/release.ts fills in the version and the optional dependencies.
"use strict";
const { spawn } = require("node:child_process");
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

function findBinary() {
  const found = candidates().map(binaryOf);
  // npm honours the libc field and installs one Linux variant; an npm that ignores it installs both,
  // and only then is the C library asked (the report costs a few milliseconds).
  if (found[0] && found[1]) return isMusl() ? found[1] : found[0];
  return found[0] || found[1] || null;
}

const binary = findBinary();
if (!binary) {
  const supported = Object.keys(pkg.optionalDependencies || {}).map((n) => n.slice(pkg.name.length + 1));
  const wanted = `${process.platform}-${process.arch}${isMusl() ? "-musl" : ""}`;
  process.stderr.write(
    supported.includes(wanted)
      ? `agent: the binary for ${wanted} is missing: its package ${pkg.name}-${wanted} was not installed (optional dependencies skipped?). Reinstall with: npm install -g ${pkg.name}\n`
      : `agent: there is no agent build for ${wanted}; builds exist for ${supported.join(", ")}\n`,
  );
  process.exit(1);
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
// A signal sent to this launcher (a service manager's SIGTERM) goes to the agent; the agent decides when to stop.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    try {
      child.kill(signal);
    } catch {}
  });
}
child.on("error", (error) => {
  process.stderr.write(`agent: cannot start ${binary}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the shell sees what the agent saw.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
