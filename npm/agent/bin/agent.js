#!/usr/bin/env node
// The npm launcher of agent: runs the binary of the optional dependency for this platform with the same
// arguments, standard streams and exit status. On Linux and macOS the postinstall script (install.js)
// replaces this file with the binary itself, so npm's `agent` runs it without starting Node; this
// launcher stays where that is not done: Windows, `npm install --ignore-scripts`, pnpm and yarn, or a
// binary that failed the postinstall's check. scripts/release.ts fills in the version and the optional
// dependencies of package.json.
"use strict";
const { spawn } = require("node:child_process");
const { findBinary, missingMessage } = require("../lib/find-binary.js");

const binary = findBinary();
if (!binary) {
  process.stderr.write(missingMessage());
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
