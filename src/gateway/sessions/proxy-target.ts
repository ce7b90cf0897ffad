// Where the proxy sends a session's request: its live daemon, or the error to answer with. A session whose
// daemon stopped it for being idle is resumed first (docs/decisions-gateway-sessions.md 30): the caller
// never sees the idle exit. A session stopped on request stays stopped (503).
import type { GatewayContext } from "../context.ts";
import { stoppedByItself, type SessionParts } from "./endings.ts";
import type { LiveDaemon } from "./live-daemons.ts";

export type ProxyTarget = { ok: true; daemon: LiveDaemon } | { ok: false; status: 404 | 503 | 502; body: Record<string, string> };

/** The proxy's view: a live daemon, or the error to answer with. */
export async function proxyTarget(parts: Pick<SessionParts, "live" | "registry">, id: string): Promise<ProxyTarget> {
  const daemon = parts.live.get(id);
  if (daemon) return { ok: true, daemon };
  const row = await parts.registry.get(id);
  if (!row || row.state === "reaped") return { ok: false, status: 404, body: { error: "not_found", message: `no session ${id}` } };
  if (row.state !== "running") return { ok: false, status: 503, body: { error: "session_not_running", state: row.state, message: `session ${id} is ${row.state}, not running` } };
  return { ok: false, status: 502, body: { error: "bad_gateway", message: `the daemon of session ${id} is unreachable` } };
}

/** What resuming for the proxy uses: how to resume a session (the supervisor's serialized resume). */
export type IdleResumeDeps = Pick<GatewayContext, "logger"> & Pick<SessionParts, "live" | "registry"> & { resume(id: string): Promise<unknown> };

/** Resumes idle-stopped sessions for proxied requests; concurrent requests to one session wait for the one resume. */
export class IdleResume {
  private readonly resuming = new Map<string, Promise<void>>();

  constructor(private readonly deps: IdleResumeDeps) {}

  /** The proxy's view, after resuming a session whose daemon stopped it for being idle. */
  async target(id: string): Promise<ProxyTarget> {
    const target = await proxyTarget(this.deps, id);
    if (target.ok || target.status !== 503) return target;
    const row = await this.deps.registry.get(id);
    if (!row || row.state !== "stopped" || stoppedByItself(row) !== "idle") return target;
    let pending = this.resuming.get(id);
    if (!pending) {
      pending = this.deps
        .resume(id)
        .then(
          () => {},
          (error) => this.deps.logger.error(`session ${id}: resuming after an idle exit failed: ${(error as Error).message}`),
        )
        .finally(() => this.resuming.delete(id));
      this.resuming.set(id, pending);
    }
    await pending;
    return await proxyTarget(this.deps, id);
  }
}
