// Installs a release over a binary: download into a temp file in the binary's own directory while
// hashing, check size and SHA-256 against the (signature-checked) manifest; only then make it executable, check that it runs and
// reports the expected version, then rename it over the binary (atomic on one filesystem). Until that
// rename the old binary is untouched; on any failure the temp file is removed.
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseVersionLine } from "../version.ts";
import type { ReleaseAsset } from "./manifest.ts";
import { insecureUrlProblem } from "./secure-url.ts";

export class UpdateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UpdateError";
  }
}

export interface InstallOptions {
  asset: ReleaseAsset;
  /** The binary to replace. */
  target: string;
  /** The version the manifest promises; the new binary's `--version` must say it. */
  version: string;
  fetch?: typeof fetch;
  /** Bytes received so far (for a progress display). */
  onProgress?: (received: number, total: number) => void;
}

const VERSION_CHECK_TIMEOUT_MS = 15_000;
const UNCHANGED = "the installed binary is unchanged";

function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}-update-${crypto.getRandomValues(new Uint32Array(2)).join("")}.partial`);
}

async function download(options: InstallOptions, temp: string): Promise<void> {
  const { asset } = options;
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(asset.url);
  } catch {
    throw new UpdateError(`cannot download ${asset.url} (not reachable); ${UNCHANGED}`);
  }
  const redirected = response.url && response.url !== asset.url ? insecureUrlProblem(response.url, `the download (redirected from ${asset.url})`) : null;
  if (redirected) throw new UpdateError(`${redirected}; ${UNCHANGED}`);
  if (response.status !== 200 || !response.body) throw new UpdateError(`downloading ${asset.url} answered HTTP ${response.status}; ${UNCHANGED}`);
  // Not executable (0600) until its checksum matched: nothing unverified can be run.
  const fd = openSync(temp, "wx", 0o600);
  const hash = new Bun.CryptoHasher("sha256");
  let received = 0;
  try {
    const reader = response.body.getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch {
        throw new UpdateError(`the download was interrupted after ${received} of ${asset.size} bytes; ${UNCHANGED}`);
      }
      if (chunk.done) break;
      received += chunk.value.length;
      if (received > asset.size) {
        await reader.cancel();
        throw new UpdateError(`the download is larger than the manifest's ${asset.size} bytes; ${UNCHANGED}`);
      }
      hash.update(chunk.value);
      writeSync(fd, chunk.value);
      options.onProgress?.(received, asset.size);
    }
    if (received !== asset.size) throw new UpdateError(`the download was interrupted after ${received} of ${asset.size} bytes; ${UNCHANGED}`);
    const digest = hash.digest("hex");
    if (digest !== asset.sha256.toLowerCase()) throw new UpdateError(`the download's SHA-256 is ${digest}, not the manifest's ${asset.sha256.toLowerCase()}; ${UNCHANGED}`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Runs the new binary once: it must start on this machine and report the promised version. */
function verifyRuns(temp: string, version: string): void {
  const run = Bun.spawnSync([temp, "--version"], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeout: VERSION_CHECK_TIMEOUT_MS });
  const printed = run.stdout.toString().trim();
  if (run.exitCode !== 0 || parseVersionLine(printed) !== version) {
    throw new UpdateError(`the downloaded binary does not run as agent ${version} (it printed '${printed.slice(0, 80)}', exit ${run.exitCode}); ${UNCHANGED}`);
  }
}

export async function installRelease(options: InstallOptions): Promise<void> {
  let mode: number;
  try {
    mode = statSync(options.target).mode & 0o777;
  } catch (error) {
    throw new UpdateError(`cannot read ${options.target} (${(error as NodeJS.ErrnoException).code})`);
  }
  const temp = tempPathFor(options.target);
  try {
    try {
      await download(options, temp);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EACCES" || code === "EPERM" || code === "EROFS") throw new UpdateError(`cannot write in ${dirname(options.target)} (${code}); run agent update as a user who may replace ${options.target}`);
      throw error;
    }
    chmodSync(temp, mode | 0o100);
    verifyRuns(temp, options.version);
    renameSync(temp, options.target);
  } finally {
    rmSync(temp, { force: true });
  }
}
