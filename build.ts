// Compiles the single `agent` executable. `bun run build.ts` writes dist/agent for this machine and
// smoke-tests it; scripts/release.ts calls compileAgent for every release target.
// Two passes: the first binary is started once as an idle session daemon that records which functions it
// runs (BUN_BYTECODE_ORDER_OUT); the second is laid out by that profile, so a daemon maps in only the part
// of the bytecode it uses (about 3.5 MB less idle RSS, docs/decisions-daemon.md 24). Other roles run the
// same code, laid out after it; cross-compiled targets take the host's profile (the bundle is the same).
// The version and the commit are compiled in (src/version.ts); with the same commit, version and target,
// two builds give the same bytes (docs/decisions-platform.md).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import pkg from "./package.json" with { type: "json" };
import { writeFreshCredential } from "./src/daemon/credential.ts";
import { buildKeyPems } from "./src/update/release-keys.ts";

export const ROOT = import.meta.dir;

export interface CompileOptions {
  outfile: string;
  /** A `bun build --compile` target such as `bun-linux-arm64`; the host when absent. */
  target?: string;
  version: string;
  commit: string;
  /** The release asset this binary is (`linux-x64-musl`, ...): `agent update` looks for the same key. */
  assetKey?: string;
  bytecodeOrder?: string | null;
  /** The release signing keys (PEM) the binary trusts; default: release-keys.pem plus the AGENT_RELEASE_KEYS file. */
  releaseKeys?: string[];
}

/** The commit the tree is at (`+modified` when it has uncommitted changes), or `unknown` outside git. */
export function gitCommit(root: string = ROOT): string {
  const head = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: root, stdout: "pipe", stderr: "ignore" });
  if (head.exitCode !== 0) return "unknown";
  const status = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { cwd: root, stdout: "pipe", stderr: "ignore" });
  return `${head.stdout.toString().trim()}${status.stdout.toString().trim() === "" ? "" : "+modified"}`;
}

export async function compileAgent(options: CompileOptions): Promise<void> {
  mkdirSync(dirname(options.outfile), { recursive: true });
  const build = {
    version: options.version,
    commit: options.commit,
    ...(options.assetKey ? { asset: options.assetKey } : {}),
  };
  const result = await Bun.build({
    // The PAM and trace export workers are Worker entrypoints: inside the binary each must be bundled as its own module.
    entrypoints: [resolve(ROOT, "src/cli/main.ts"), resolve(ROOT, "src/gateway/auth/pam-worker.ts"), resolve(ROOT, "src/telemetry/export-worker.ts")],
    compile: {
      outfile: options.outfile,
      autoloadDotenv: false,
      autoloadBunfig: false,
      bytecodeOrder: options.bytecodeOrder ?? null,
      ...(options.target ? { target: options.target as Bun.Build.CompileTarget } : {}),
    },
    target: "bun",
    format: "esm",
    splitting: true,
    bytecode: true,
    minify: true,
    define: { "process.env.NODE_ENV": JSON.stringify("production"), AGENT_BUILD: JSON.stringify(build), AGENT_RELEASE_KEYS: JSON.stringify(options.releaseKeys ?? buildKeyPems(process.env)) },
    plugins: [
      {
        // Ink imports the optional react-devtools-core (DEV=true only); the binary ships without DevTools.
        name: "react-devtools-off",
        setup(builder) {
          builder.onResolve({ filter: /^react-devtools-core$/ }, () => ({
            path: resolve(ROOT, "src/util/react-devtools-off.ts"),
          }));
        },
      },
    ],
  });
  if (!result.success) throw new Error(`bun build failed for ${options.target ?? "this machine"}:\n${result.logs.join("\n")}`);
}

/** Starts a host binary as a demo session daemon in a scratch home, stops it once ready; returns the profile's path. */
export async function profileIdleDaemon(binary: string, scratch: string): Promise<string> {
  const order = join(scratch, "daemon.order");
  const credDir = join(scratch, "cred");
  mkdirSync(credDir, { recursive: true, mode: 0o700 });
  writeFreshCredential(join(credDir, "credential.json"));
  const env = { PATH: process.env.PATH ?? "", HOME: scratch, XDG_CONFIG_HOME: join(scratch, "config"), XDG_DATA_HOME: join(scratch, "data"), BUN_BYTECODE_ORDER_OUT: order };
  const args = [binary, "daemon", "--session-dir", join(scratch, "session"), "--credential-file", join(credDir, "credential.json"), "--demo", "--project", scratch];
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

/** Builds a host binary in two passes (plain, then laid out by an idle daemon's profile); returns the profile for other targets. */
export async function compileProfiled(options: Omit<CompileOptions, "bytecodeOrder" | "target">, scratch: string): Promise<string> {
  await compileAgent(options);
  const order = await profileIdleDaemon(options.outfile, scratch);
  await compileAgent({ ...options, bytecodeOrder: order });
  return order;
}

if (import.meta.main) {
  const outfile = resolve(ROOT, "dist/agent");
  rmSync(resolve(ROOT, "dist"), { recursive: true, force: true });
  const scratch = mkdtempSync(join(tmpdir(), "agent-build-"));
  try {
    await compileProfiled({ outfile, version: pkg.version, commit: gitCommit() }, scratch);
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
}
