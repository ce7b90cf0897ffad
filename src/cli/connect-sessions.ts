// What `agent connect` asks of the gateway's session routes: make a picked session run (wait for one
// that is starting, resume a stopped or failed one, create one in a project), and the daemon client of a
// running session through the proxy, whose stop (`/kill-session`) is the gateway's stop route.
import { DaemonClient, type DaemonClientOptions } from "../client/daemon-client.ts";
import type { FetchLike } from "../client/tls-pin.ts";

/** The parts of the gateway's session record this client reads. */
interface SessionRecord {
  id: string;
  state: "starting" | "running" | "stopped" | "failed" | "cleanup_pending" | "reaped";
  transitions?: { to: string; trigger: string; detail: string | null }[];
}

export class GatewaySessionError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = "GatewaySessionError";
  }
}

export interface GatewaySessionsOptions {
  baseUrl: string;
  /** A fetch through the trusted transport. */
  fetch: FetchLike;
  /** The current gateway token (refreshed when near expiry). */
  token(): Promise<string>;
  /** Waits between polls of a starting session. */
  pollMs?: number;
}

export class GatewaySessions {
  constructor(private readonly options: GatewaySessionsOptions) {}

  private async call(method: string, path: string, body?: unknown): Promise<SessionRecord> {
    const res = await this.options.fetch(`${this.options.baseUrl}${path}`, {
      method,
      redirect: "manual",
      headers: { Authorization: `Bearer ${await this.options.token()}`, Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.ok) return parsed as unknown as SessionRecord;
    const code = String(parsed.error ?? parsed.code ?? `http_${res.status}`);
    const message = typeof parsed.message === "string" ? parsed.message : code;
    throw new GatewaySessionError(res.status, `the gateway refused (${res.status} ${code}): ${message}`);
  }

  /** A new session in the project, once its daemon runs. */
  async create(projectId: string, launchMode: "project_direct" | "worktree_backed"): Promise<string> {
    const created = await this.call("POST", "/api/v1/sessions", { project_id: projectId, launch_mode: launchMode });
    return this.untilRunning(created);
  }

  /** The session, running: waits for a starting one, resumes a stopped or failed one. */
  async ensureRunning(sessionId: string): Promise<string> {
    const record = await this.call("GET", `/api/v1/sessions/${encodeURIComponent(sessionId)}`);
    if (record.state === "stopped" || record.state === "failed") return this.untilRunning(await this.call("POST", `/api/v1/sessions/${encodeURIComponent(sessionId)}/resume`));
    if (record.state === "cleanup_pending" || record.state === "reaped") throw new GatewaySessionError(409, `session ${sessionId} is being removed (${record.state})`);
    return this.untilRunning(record);
  }

  /** Stops the session's daemon (the gateway's stop: terminate request, then signals). */
  async stop(sessionId: string): Promise<void> {
    await this.call("POST", `/api/v1/sessions/${encodeURIComponent(sessionId)}/stop`);
  }

  private async untilRunning(record: SessionRecord): Promise<string> {
    let current = record;
    while (current.state === "starting") {
      await Bun.sleep(this.options.pollMs ?? 200);
      current = await this.call("GET", `/api/v1/sessions/${encodeURIComponent(record.id)}`);
    }
    if (current.state === "running") return current.id;
    const last = current.transitions?.at(-1);
    throw new GatewaySessionError(503, `session ${current.id} did not start: it is ${current.state}${last?.detail ? ` (${last.detail})` : ""}`);
  }

  /** The daemon client of a running session through the proxy; its `stop` is the gateway's stop route. */
  client(sessionId: string, options: Partial<DaemonClientOptions> = {}): DaemonClient {
    return new ProxiedSessionClient(
      { url: `${this.options.baseUrl}/api/v1/sessions/${encodeURIComponent(sessionId)}/proxy`, token: () => this.options.token(), fetch: this.options.fetch, ...options },
      () => this.stop(sessionId),
    );
  }
}

/**
 * A session reached through the gateway proxy. Stopping goes to the gateway, not to the daemon's own stop
 * route: the gateway then records the session as stopped (resumable), where a daemon that exits by itself
 * would look like a crash to it.
 */
export class ProxiedSessionClient extends DaemonClient {
  /** Set once `/kill-session` stopped the session. */
  stopped = false;

  constructor(options: DaemonClientOptions, private readonly stopThroughGateway: () => Promise<void>) {
    super(options);
  }

  override async stop(): Promise<{ status: string }> {
    await this.stopThroughGateway();
    this.stopped = true;
    return { status: "stopped" };
  }
}
