// `agent update` and `agent update --check`: the release manifest from `updates.manifest_url`, the
// channel from `updates.channel` (or --channel), the running binary (or --binary FILE) as the target.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CliError, EXIT, type Io, type ParsedArgs } from "../util/cli-command.ts";
import { loadConfig } from "../config/load.ts";
import { parseVersionLine, VERSION } from "../version.ts";
import { checkForUpdate, rememberCheck, type Channel, type CheckResult } from "./check.ts";
import { installRelease, UpdateError } from "./install.ts";
import { ManifestError } from "./manifest.ts";
import { KeyError, trustedKeys } from "./release-keys.ts";
import { IS_COMPILED } from "./self.ts";
import { parseVersion } from "./semver.ts";

/** The version a binary reports (`agent X.Y.Z` on --version). */
function versionOf(binary: string): string {
  let run;
  try {
    run = Bun.spawnSync([binary, "--version"], { stdout: "pipe", stderr: "pipe", timeout: 15_000 });
  } catch {
    throw new CliError(`cannot run ${binary} --version: is it an agent binary?`);
  }
  const printed = run.stdout.toString().trim();
  const version = parseVersionLine(printed);
  if (run.exitCode !== 0 || !version || !parseVersion(version)) throw new CliError(`${binary} --version did not print 'agent <version>' (got '${printed.slice(0, 60)}'); is it an agent binary?`);
  return version;
}

/** The npm package to update when the binary sits in a platform package (docs/updates.md, npm), else null. */
function installedByNpm(binary: string): string | null {
  if (!/[\\/]node_modules[\\/]/.test(binary)) return null;
  try {
    const platformPackage = (JSON.parse(readFileSync(join(dirname(binary), "..", "package.json"), "utf8")) as { name?: string }).name ?? "";
    return platformPackage.replace(/-(linux|darwin|win32)-[a-z0-9_-]+$/, "") || "<package>";
  } catch {
    return "<package>";
  }
}

function targetOf(args: ParsedArgs, io: Io): { target: string; current: string } {
  const given = args.flags.binary as string | undefined;
  if (given) {
    const target = resolve(io.cwd, given);
    return { target, current: versionOf(target) };
  }
  if (!IS_COMPILED) throw new CliError("this agent runs from source (under bun), so there is no binary to replace; pass --binary FILE to update an installed agent binary");
  const npmPackage = installedByNpm(process.execPath);
  if (npmPackage) throw new CliError(`this agent was installed with npm (${process.execPath}); update it with npm so npm keeps track of it: npm install -g ${npmPackage}@latest`);
  return { target: process.execPath, current: VERSION };
}

function describe(result: CheckResult): string {
  if (result.available) return `agent ${result.latest} is available (you have ${result.current}; channel ${result.channel})`;
  if (result.latest === null) return `the ${result.channel} channel has no release for ${result.platform}; you have ${result.current}`;
  return `agent ${result.current} is up to date (newest on the ${result.channel} channel: ${result.latest})`;
}

export async function updateRun(args: ParsedArgs, io: Io): Promise<number> {
  const loaded = loadConfig({ cwd: io.cwd, env: io.env });
  const updates = loaded.config.updates ?? {};
  if (!updates.manifest_url) throw new CliError("no release manifest is configured: set updates.manifest_url in the global config (docs/updates.md describes the manifest)");
  const channel = ((args.flags.channel as Channel | undefined) ?? updates.channel ?? "stable") as Channel;
  const json = args.flags.json === true;
  const checkOnly = args.flags.check === true;
  const { target, current } = checkOnly && !args.flags.binary ? { target: null, current: VERSION } : targetOf(args, io);
  let result: CheckResult;
  try {
    result = await checkForUpdate({ manifestUrl: updates.manifest_url, channel, current, trustedKeys: trustedKeys(io.env) });
  } catch (error) {
    if (error instanceof ManifestError || error instanceof KeyError) throw new CliError(error.message);
    throw error;
  }
  rememberCheck(io.env, result, new Date());
  const summary = { current: result.current, latest: result.latest, channel: result.channel, platform: result.platform, available: result.available };
  if (checkOnly || !result.available) {
    if (json) io.out(`${JSON.stringify({ ...summary, updated: false })}\n`);
    else io.out(`${describe(result)}${result.available ? "; run `agent update` to install it" : ""}\n`);
    return EXIT.ok;
  }
  const asset = result.asset!;
  if (!json) io.err(`downloading agent ${result.latest} for ${result.platform} (${(asset.size / 1e6).toFixed(1)} MB)…\n`);
  try {
    let shown = -1;
    // On a terminal the download counts up in tens of percent; pipes get the start and end lines only.
    const onProgress = io.isTty && !json ? (received: number, total: number) => {
      const tenth = Math.floor((received / total) * 10);
      if (tenth !== shown) io.err(`\rdownloading… ${(shown = tenth) * 10}%${tenth === 10 ? "\n" : ""}`);
    } : undefined;
    await installRelease({ asset, target: target!, version: result.latest!, onProgress });
  } catch (error) {
    if (error instanceof UpdateError) throw new CliError(`update failed: ${error.message}`);
    throw error;
  }
  rememberCheck(io.env, { ...result, current: result.latest!, available: false }, new Date());
  if (json) io.out(`${JSON.stringify({ ...summary, updated: true, binary: target })}\n`);
  else io.out(`updated ${target}: ${current} -> ${result.latest}\n`);
  return EXIT.ok;
}
