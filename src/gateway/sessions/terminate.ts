// Ending a daemon process: the HTTP terminate request first, then signals. Every signal is preceded by an
// identity check (pid AND start time), so a pid reused by another process is never signalled.
import { isSameProcess, signalIfSame, type ProcessIdentity } from "./process-identity.ts";

export interface DaemonProcess extends ProcessIdentity {
  port: number | null;
  token: string | null;
  /** The exit of a child this gateway spawned; null for a re-adopted daemon (watched by polling). */
  exited: Promise<string> | null;
}

/** Waits until the process is gone or `ms` pass; returns whether it is gone. */
export async function waitGone(proc: DaemonProcess, ms: number): Promise<boolean> {
  if (proc.exited) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gone = await Promise.race([proc.exited.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))]);
    clearTimeout(timer);
    return gone;
  }
  const deadline = performance.now() + ms;
  while (isSameProcess(proc)) {
    if (performance.now() >= deadline) return false;
    await Bun.sleep(25);
  }
  return true;
}

async function requestExit(proc: DaemonProcess, timeoutMs: number): Promise<boolean> {
  if (proc.port === null || proc.token === null) return false;
  try {
    const res = await fetch(`http://127.0.0.1:${proc.port}/session/stop`, {
      method: "POST",
      headers: { Authorization: `Bearer ${proc.token}`, "Content-Type": "application/json" },
      body: '{"exit":true}',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

export type TerminationPath = "already_gone" | "terminate_request" | "sigterm" | "sigkill";

/**
 * Ends the daemon: a terminate request (`POST /session/stop {exit:true}`) when `graceful`; when that is not
 * answered, SIGTERM; SIGKILL when the process is still there `stopTimeoutMs` after the request or SIGTERM.
 */
export async function terminateDaemon(proc: DaemonProcess, stopTimeoutMs: number, graceful = true): Promise<TerminationPath> {
  if (!isSameProcess(proc)) {
    if (proc.exited) await proc.exited;
    return "already_gone";
  }
  if (graceful && (await requestExit(proc, stopTimeoutMs))) {
    if (await waitGone(proc, stopTimeoutMs)) return "terminate_request";
  } else {
    signalIfSame(proc, "SIGTERM");
    if (await waitGone(proc, stopTimeoutMs)) return "sigterm";
  }
  signalIfSame(proc, "SIGKILL");
  await waitGone(proc, 5000);
  return "sigkill";
}
