// Runs every benchmark script in bench/ in turn (`bun run bench`). Benchmarks print their figures and
// PASS/FAIL lines; this exits non-zero only when a script itself fails to run.
import { readdirSync } from "node:fs";
import { join } from "node:path";

const scripts = readdirSync(import.meta.dir)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts")
  .sort();
let broken = 0;
for (const script of scripts) {
  console.log(`\n== bench/${script}`);
  const proc = Bun.spawnSync(["bun", "run", join(import.meta.dir, script)], { stdout: "inherit", stderr: "inherit", env: process.env });
  if (proc.exitCode !== 0) {
    broken++;
    console.log(`bench/${script} exited ${proc.exitCode}`);
  }
}
process.exit(broken ? 1 : 0);
