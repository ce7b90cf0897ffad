// Compiles the single `dist/agent` executable, then smoke-tests it.
// Two passes: the first binary is started once as an idle session daemon that records which functions it
// runs (BUN_BYTECODE_ORDER_OUT); the second is laid out by that profile, so a daemon maps in only the part
// of the bytecode it uses (about 3.5 MB less idle RSS, docs/decisions-daemon.md 24). Other roles run the
// same code, laid out after it.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeFreshCredential } from "./src/daemon/credential.ts";

const outfile = resolve(import.meta.dir, "dist/agent");
rmSync(resolve(import.meta.dir, "dist"), { recursive: true, force: true });

async function compile(bytecodeOrder: string | null): Promise<void> {
  const result = await Bun.build({
    // The PAM and trace export workers are Worker entrypoints: inside the binary each must be bundled as its own module.
    entrypoints: [resolve(import.meta.dir, "src/cli/main.ts"), resolve(import.meta.dir, "src/gateway/auth/pam-worker.ts"), resolve(import.meta.dir, "src/telemetry/export-worker.ts")],
    compile: { outfile, autoloadDotenv: false, autoloadBunfig: false, bytecodeOrder },
    target: "bun",
    format: "esm",
    splitting: true,
    bytecode: true,
    minify: true,
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    plugins: [
      {
        // Ink imports the optional react-devtools-core (DEV=true only); the binary ships without DevTools.
        name: "react-devtools-off",
        setup(build) {
          build.onResolve({ filter: /^react-devtools-core$/ }, () => ({
            path: resolve(import.meta.dir, "src/util/react-devtools-off.ts"),
          }));
        },
      },
    ],
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
}

/** Starts the binary as a demo session daemon in a scratch home, stops it once ready; returns the profile's path. */
async function profileIdleDaemon(scratch: string): Promise<string> {
  const order = join(scratch, "daemon.order");
  const credDir = join(scratch, "cred");
  mkdirSync(credDir, { mode: 0o700 });
  writeFreshCredential(join(credDir, "credential.json"));
  const env = { PATH: process.env.PATH ?? "", HOME: scratch, XDG_CONFIG_HOME: join(scratch, "config"), XDG_DATA_HOME: join(scratch, "data"), BUN_BYTECODE_ORDER_OUT: order };
  const args = [outfile, "daemon", "--session-dir", join(scratch, "session"), "--credential-file", join(credDir, "credential.json"), "--demo", "--project", scratch];
  const daemon = Bun.spawn(args, { env, cwd: scratch, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => daemon.kill("SIGKILL"), 30_000);
  const reader = daemon.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  // The profile is written as the process exits; SIGTERM is the daemon's ordinary stop.
  daemon.kill("SIGTERM");
  const code = await daemon.exited;
  clearTimeout(timer);
  if (!text.includes("\n") || code !== 0 || !(await Bun.file(order).exists())) {
    throw new Error(`the profiling daemon run failed (exit ${code}): ${text.trim()} ${(await new Response(daemon.stderr).text()).trim()}`);
  }
  return order;
}

await compile(null);
const scratch = mkdtempSync(join(tmpdir(), "agent-build-"));
try {
  await compile(await profileIdleDaemon(scratch));
} catch (error) {
  console.error(`build: ${(error as Error).message}`);
  process.exit(1);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const smoke = Bun.spawnSync([outfile, "--version"], { env: { PATH: process.env.PATH ?? "" } });
const printed = smoke.stdout.toString().trim();
if (smoke.exitCode !== 0 || !/^agent \d+\.\d+\.\d+/.test(printed)) {
  console.error(`build smoke test failed: 'dist/agent --version' exited ${smoke.exitCode}: ${printed} ${smoke.stderr}`);
  process.exit(1);
}
console.log(`built ${outfile} (${printed})`);
