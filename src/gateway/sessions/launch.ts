// Starting one daemon generation: the configuration's files, `pre-run.sh`, the spawn itself (detached, so
// daemons outlive a gateway restart and are re-adopted), port discovery from the ready line, and the
// health poll. Everything here is bounded by the `daemon_sessions` timeouts of the gateway config.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ReadyLine } from "../../daemon/serve.ts";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import { processStartTicks } from "./process-identity.ts";
import type { LaunchConfig } from "./store.ts";

export class LaunchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LaunchError";
  }
}

export interface ConfigurationFiles {
  configFile: string;
  preRunScript: string | null;
}

/**
 * The project's configuration as the generation's daemon and `pre-run.sh` read it: written fresh into the
 * session's directory (`launch-config/`), since the registry's files are on the fronts' side (a host agent
 * has no data dir of theirs). Owner-only: a config may hold provider keys.
 */
export function writeLaunchConfig(sessionDir: string, config: LaunchConfig): ConfigurationFiles {
  const dir = join(sessionDir, "launch-config");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const configFile = join(dir, `config.${config.format}`);
  writeFileAtomic(configFile, config.content, 0o600);
  if (config.preRunScript === null) return { configFile, preRunScript: null };
  const preRunScript = join(dir, "pre-run.sh");
  writeFileAtomic(preRunScript, config.preRunScript, 0o700);
  return { configFile, preRunScript };
}

export function tail(path: string, lines = 3): string {
  try {
    return readFileSync(path, "utf8").trim().split("\n").slice(-lines).join(" | ").slice(0, 400);
  } catch {
    return "";
  }
}

/** Runs `pre-run.sh` with /bin/sh in the session's working dir; output goes to `logFile`. */
export async function runPreRun(script: string, cwd: string, env: Record<string, string | undefined>, logFile: string, timeoutMs: number): Promise<void> {
  const fd = openSync(logFile, "a", 0o600);
  try {
    const child = spawn("/bin/sh", [script], { cwd, env: env as NodeJS.ProcessEnv, stdio: ["ignore", fd, fd] });
    const code = await new Promise<number | string>((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve("timeout");
      }, timeoutMs);
      child.once("error", (e) => (clearTimeout(timer), resolve(e.message)));
      child.once("exit", (c, s) => (clearTimeout(timer), resolve(c ?? s ?? "unknown")));
    });
    if (code === "timeout") throw new LaunchError(`pre-run.sh did not finish within ${timeoutMs / 1000}s (see ${logFile})`);
    if (code !== 0) throw new LaunchError(`pre-run.sh exited with status ${code}${tail(logFile) ? `: ${tail(logFile)}` : ""}`);
  } finally {
    closeSync(fd);
  }
}

export interface SpawnedDaemon {
  child: ChildProcess;
  pid: number;
  startTicks: string;
  /** Resolves with the exit code (or signal name) once the process is gone (and reaped). */
  exited: Promise<string>;
}

export interface SpawnOptions {
  command: string[];
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  stderrFile: string;
}

/** Spawns the daemon in its own process group; the caller reads the ready line with `discoverPort`. */
export function spawnDaemon(options: SpawnOptions): SpawnedDaemon {
  const [cmd, ...pre] = options.command;
  const errFd = openSync(options.stderrFile, "a", 0o600);
  let child: ChildProcess;
  try {
    child = spawn(cmd!, [...pre, ...options.args], { cwd: options.cwd, detached: true, stdio: ["ignore", "pipe", errFd], env: options.env as NodeJS.ProcessEnv });
  } finally {
    closeSync(errFd);
  }
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ?? String(code)));
    child.once("error", (e) => resolve(e.message));
  });
  // The gateway may exit while its daemons keep running: nothing here holds the event loop open.
  child.unref();
  const pid = child.pid;
  const startTicks = pid === undefined ? null : processStartTicks(pid);
  if (pid === undefined || startTicks === null) throw new LaunchError(`cannot start the daemon (${options.command.join(" ")}): the process did not start${tail(options.stderrFile) ? `: ${tail(options.stderrFile)}` : ""}`);
  return { child, pid, startTicks, exited };
}

/** Reads the daemon's one JSON ready line `{"port","pid","epoch"}` from its stdout within `timeoutMs`. */
export async function discoverPort(daemon: SpawnedDaemon, timeoutMs: number, stderrFile: string): Promise<ReadyLine> {
  const stdout = daemon.child.stdout!;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const line = await Promise.race([
      new Promise<string>((resolve) => {
        let text = "";
        stdout.on("data", (d: Buffer) => {
          text += d.toString();
          const nl = text.indexOf("\n");
          if (nl >= 0) resolve(text.slice(0, nl));
        });
      }),
      daemon.exited.then((how) => {
        throw new LaunchError(`the daemon exited (${how}) before it reported its port${tail(stderrFile) ? `: ${tail(stderrFile)}` : ""}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new LaunchError(`the daemon did not report its port within ${timeoutMs / 1000}s (spawn_discover_timeout_secs)`)), timeoutMs);
      }),
    ]);
    let ready: ReadyLine;
    try {
      ready = JSON.parse(line) as ReadyLine;
    } catch {
      throw new LaunchError("the daemon's ready line is not JSON");
    }
    if (!Number.isInteger(ready.port) || ready.port <= 0 || ready.port > 65535 || typeof ready.epoch !== "string") throw new LaunchError("the daemon's ready line has no valid port and epoch");
    return ready;
  } finally {
    clearTimeout(timer);
    stdout.removeAllListeners("data");
    // The daemon prints nothing after its ready line; a closed pipe never blocks it.
    stdout.destroy();
    (stdout as unknown as { unref?: () => void }).unref?.();
  }
}

/** One health probe: the daemon answers `GET /health` with its own token. */
export async function probeHealth(port: number, token: string, timeoutMs: number): Promise<{ ok: true; epoch: string } | { ok: false; why: string }> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      await res.body?.cancel();
      return { ok: false, why: `GET /health answered ${res.status}` };
    }
    const body = (await res.json()) as { daemon_epoch?: string };
    return { ok: true, epoch: body.daemon_epoch ?? "" };
  } catch (error) {
    const name = (error as Error).name;
    return { ok: false, why: name === "TimeoutError" || name === "AbortError" ? `GET /health did not answer within ${timeoutMs}ms` : `GET /health failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

/** Polls `/health` until it passes or `timeoutMs` (health_check_timeout_secs) runs out. */
export async function waitHealthy(port: number, token: string, timeoutMs: number, exited: Promise<string> | null): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let gone: string | null = null;
  void exited?.then((how) => (gone = how));
  let last = "";
  while (performance.now() < deadline) {
    if (gone !== null) throw new LaunchError(`the daemon exited (${gone}) before it became healthy`);
    const probe = await probeHealth(port, token, Math.max(50, Math.min(2000, deadline - performance.now())));
    if (probe.ok) return;
    last = probe.why;
    await Bun.sleep(Math.min(100, Math.max(0, deadline - performance.now())));
  }
  throw new LaunchError(`the daemon did not become healthy within ${timeoutMs / 1000}s (health_check_timeout_secs)${last ? `: ${last}` : ""}`);
}
