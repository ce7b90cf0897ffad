// Starts (or finds) the daemon of a session directory: writes a fresh credential.json (0600, dir 0700),
// spawns `agent daemon` detached, and waits for its ready line. A live daemon (daemon.json names a
// process that answers /health with the session's token) is reused instead, unless it no longer serves
// the session (it was stopped and stays up for its history, or is stopping): that one is ended first.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CREDENTIAL_FILE, loadCredential, writeFreshCredential } from "../daemon/credential.ts";
import { assertWritableDir } from "../daemon/storage-fault.ts";

export interface DaemonHandle {
  url: string;
  token: string;
  port: number;
  pid: number;
  epoch: string;
  /** Whether this call started the daemon (false: an already running one was found). */
  started: boolean;
  /** Whether the daemon serves the session (false: stopped or stopping; it only serves history). */
  serving: boolean;
}

/** How to run this program again: the compiled binary, or bun with the entry script during development. */
export function selfCommand(): string[] {
  const script = process.argv[1] ?? "";
  return /\.(ts|js)$/.test(script) && !script.startsWith("/$bunfs") ? [process.execPath, script] : [process.execPath];
}

/** The running daemon of a session dir, if daemon.json names one that answers with this session's token. */
export async function findLiveDaemon(sessionDir: string): Promise<DaemonHandle | null> {
  const readyFile = join(sessionDir, "daemon.json");
  const credFile = join(sessionDir, CREDENTIAL_FILE);
  if (!existsSync(readyFile) || !existsSync(credFile)) return null;
  let ready: { port: number; pid: number; epoch: string };
  let token: string;
  try {
    ready = JSON.parse(readFileSync(readyFile, "utf8"));
    token = loadCredential(credFile);
    process.kill(ready.pid, 0);
  } catch {
    return null;
  }
  const url = `http://127.0.0.1:${ready.port}`;
  try {
    const res = await fetch(`${url}/health`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2000) });
    if (!res.ok) return null;
    const health = (await res.json()) as { daemon_epoch?: string; serving?: boolean };
    return { url, token, port: ready.port, pid: ready.pid, epoch: health.daemon_epoch ?? ready.epoch, started: false, serving: health.serving !== false };
  } catch {
    return null;
  }
}

export interface LaunchOptions {
  sessionDir: string;
  env: Record<string, string | undefined>;
  demo?: boolean;
  /** Milliseconds to wait for the ready line. */
  timeoutMs?: number;
  /**
   * Continue the session: a stopped one is marked running (after a daemon that no longer serves it has
   * gone, so its late "stopped" cannot land after it).
   */
  resume?: boolean;
  /** This run's permission flags, passed on to the daemon (src/cli/run-permission-flags.ts). */
  permissionArgs?: string[];
}

/** Reuses the session's live daemon or starts one, detached, so it outlives this command. */
export async function ensureDaemon(options: LaunchOptions): Promise<DaemonHandle> {
  const live = await findLiveDaemon(options.sessionDir);
  if (live?.serving) return live;
  if (live) await retire(live.pid);
  // A read-only (or full) session dir: said plainly, before a store or credential write fails on it.
  assertWritableDir(options.sessionDir);
  if (options.resume) {
    const { openSession } = await import("../daemon/store/index.ts");
    const store = openSession(options.sessionDir);
    try {
      // Continuing a stopped session makes it running again (its stopped-history checkpoints become invalid).
      if (store.meta().state !== "running") store.setState("running");
    } finally {
      store.close();
    }
  }
  chmodSync(options.sessionDir, 0o700);
  const credFile = join(options.sessionDir, CREDENTIAL_FILE);
  const token = writeFreshCredential(credFile);
  const log = openSync(join(options.sessionDir, "daemon.stderr"), "a", 0o600);
  const [cmd, ...pre] = selfCommand();
  const args = [...pre, "daemon", "--session-dir", options.sessionDir, "--credential-file", credFile, ...(options.demo ? ["--demo"] : []), ...(options.permissionArgs ?? [])];
  const child = spawn(cmd!, args, { detached: true, stdio: ["ignore", "pipe", log], env: options.env as NodeJS.ProcessEnv });
  const line = await new Promise<string>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`the daemon did not report ready within ${(options.timeoutMs ?? 30_000) / 1000}s (see ${join(options.sessionDir, "daemon.stderr")})`)), options.timeoutMs ?? 30_000);
    child.stdout!.on("data", (d: Buffer) => {
      text += d.toString();
      const nl = text.indexOf("\n");
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(text.slice(0, nl));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      const detail = readTail(join(options.sessionDir, "daemon.stderr"));
      reject(new Error(`the daemon exited with status ${code} before it was ready${detail ? `: ${detail}` : ""}`));
    });
  });
  child.removeAllListeners("exit");
  child.stdout!.destroy();
  child.unref();
  const ready = JSON.parse(line) as { port: number; pid: number; epoch: string };
  return { url: `http://127.0.0.1:${ready.port}`, token, port: ready.port, pid: ready.pid, epoch: ready.epoch, started: true, serving: true };
}

/**
 * Ends a daemon that no longer serves its session, or waits for one that was asked to exit: SIGTERM
 * (it finishes what it writes and exits), then SIGKILL. `first: null` only waits before signalling.
 */
export async function retire(pid: number, first: "SIGTERM" | null = "SIGTERM"): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const [signal, waitMs] of [[first, 10_000], ["SIGKILL", 2_000]] as const) {
    try {
      if (signal) process.kill(pid, signal);
    } catch {
      return;
    }
    for (let waited = 0; waited < waitMs && alive(); waited += 50) await Bun.sleep(50);
    if (!alive()) return;
  }
  throw new Error(`the session's daemon (pid ${pid}) does not exit; end it and try again`);
}

function readTail(path: string): string {
  try {
    return readFileSync(path, "utf8").trim().split("\n").slice(-3).join(" ").slice(0, 500);
  } catch {
    return "";
  }
}
