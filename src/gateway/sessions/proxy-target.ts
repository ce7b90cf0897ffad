// Where the proxy sends a session's request: its live daemon, or the error to answer with. A session whose
// daemon stopped it for being idle is resumed first (docs/decisions-gateway-sessions.md 30): the caller
// never sees the idle exit. A session stopped on request stays stopped (503). Another host's session is
// answered with 409 naming that host (its daemon runs there; ownership.ts).
import type { GatewayContext } from "../context.ts";
import { stoppedByItself, type SessionParts } from "./endings.ts";
import type { LiveDaemon } from "./live-daemons.ts";
import { otherOwner, ownedElsewhere } from "./ownership.ts";

export type ProxyTarget = { ok: true; daemon: LiveDaemon } | { ok: false; status: 404 | 409 | 503 | 502; body: Record<string, string> };

/** What finding the target uses: the daemons held and the records, and this host's name. */
export type ProxyTargetDeps = Pick<GatewayContext, "config"> & Pick<SessionParts, "live" | "store">;

/** The proxy's view: a live daemon, or the error to answer with. */
export async function proxyTarget(parts: ProxyTargetDeps, id: string): Promise<ProxyTarget> {
  const daemon = parts.live.get(id);
  if (daemon) return { ok: true, daemon };
  const row = await parts.store.session(id);
  if (!row || row.state === "reaped") return { ok: false, status: 404, body: { error: "not_found", message: `no session ${id}` } };
  const owner = otherOwner(row.ownerHost, parts.config.host_name);
  if (owner !== null) return { ok: false, status: 409, body: ownedElsewhere("session", id, owner).body() };
  if (row.state !== "running") return { ok: false, status: 503, body: { error: "session_not_running", state: row.state, message: `session ${id} is ${row.state}, not running` } };
  return { ok: false, status: 502, body: { error: "bad_gateway", message: `the daemon of session ${id} is unreachable` } };
}

/** What resuming for the proxy uses: how to resume a session (the supervisor's serialized resume). */
export type IdleResumeDeps = Pick<GatewayContext, "logger"> & ProxyTargetDeps & { resume(id: string): Promise<unknown> };

/** Resumes idle-stopped sessions for proxied requests; concurrent requests to one session wait for the one resume. */
export class IdleResume {
  private readonly resuming = new Map<string, Promise<void>>();

  constructor(private readonly deps: IdleResumeDeps) {}

  /** The proxy's view, after resuming a session whose daemon stopped it for being idle. */
  async target(id: string): Promise<ProxyTarget> {
    const target = await proxyTarget(this.deps, id);
    if (target.ok || target.status !== 503) return target;
    const row = await this.deps.store.session(id);
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
