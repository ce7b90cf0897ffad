// Front routing by owner (docs/gateway-hosts.md, Routing by owner): an operation bound to a session's or a
// project's owner host runs here when the owner is this front's own host (or no owner is recorded), goes
// over the host's connection when the owner is a joined host agent this front holds (as a request to its
// host API, `/host/v1/...`), and is refused otherwise: 503 `host_offline` for a joined host this front does
// not hold now, 409 `owned_by_other_host` for another front replica (a `serve` process: its sessions are
// reached only through it). A joined host is a name a host credential was issued for (revoked or not): a
// host agent cannot connect without one, and fronts have none (the hosts table, which presence keeps for
// fronts too, cannot tell them apart).
import { eq } from "drizzle-orm";
import { ProtocolError } from "../../protocol/errors.ts";
import type { GatewayContext } from "../context.ts";
import { first } from "../db/handle.ts";
import { otherOwner, ownedElsewhere } from "../sessions/ownership.ts";
import type { MuxConnection } from "./mux/connection.ts";

export type RoutingDeps = Pick<GatewayContext, "config" | "db" | "hostLinks">;

/** A joined host this front holds a connection to. */
export interface RemoteHost {
  host: string;
  connection: MuxConnection;
}

export function hostOffline(what: "session" | "project", id: string, host: string): ProtocolError {
  return new ProtocolError("host_offline", 503, `${what} ${id} is on host ${host}, which is not connected to this gateway front`);
}

/** Session owners remembered (joined hosts' sessions); past this many the oldest is forgotten. */
const OWNERS_KEPT = 10_000;

export class FrontRouting {
  /**
   * The owner host of sessions on joined hosts, learnt from their rows: a session's owner is written when it
   * is created and never changes while this front runs, so the session proxy need not read it again.
   */
  private readonly owners = new Map<string, string>();

  constructor(private readonly deps: RoutingDeps) {}

  /** Whether `name` is a joined host agent: a host credential was issued for it. */
  async isJoinedHost(name: string): Promise<boolean> {
    const { db } = this.deps;
    return (await first(db.select({ id: db.t.hostCredentials.id }).from(db.t.hostCredentials).where(eq(db.t.hostCredentials.hostName, name)))) !== undefined;
  }

  /** The live connection of `host`, if this front holds one. */
  link(host: string): MuxConnection | undefined {
    const connection = this.deps.hostLinks.get(host);
    return connection && !connection.isClosed ? connection : undefined;
  }

  /**
   * Where an operation on the row goes: null when this front's host serves it, the owner's connection when
   * it is a joined host this front holds; 503 `host_offline` or 409 `owned_by_other_host` otherwise.
   */
  async owner(what: "session" | "project", row: { id: string; ownerHost: string | null }): Promise<RemoteHost | null> {
    const owner = otherOwner(row.ownerHost, this.deps.config.host_name);
    if (owner === null) return null;
    const connection = this.link(owner);
    if (connection) return { host: owner, connection };
    if (await this.isJoinedHost(owner)) throw hostOffline(what, row.id, owner);
    throw ownedElsewhere(what, row.id, owner);
  }

  /** The remote owner of session `id`; null when this host serves it or there is no such session (the supervisor answers then). */
  async session(id: string): Promise<RemoteHost | null> {
    const { db } = this.deps;
    const row = await first(db.select({ id: db.t.sessions.id, ownerHost: db.t.sessions.ownerHost, state: db.t.sessions.state }).from(db.t.sessions).where(eq(db.t.sessions.id, id)));
    if (!row || row.state === "reaped") return null;
    const remote = await this.owner("session", row);
    if (remote) this.remember(id, remote.host);
    return remote;
  }

  /**
   * The connection of the joined host known to own session `id` (a `session` answer seen before), with no
   * database read: the session proxy's per-request path. Undefined when not known or not connected now
   * (then `session` answers, 503 or 409 included). A session deleted since is answered by its host (404).
   */
  knownSession(id: string): RemoteHost | undefined {
    const host = this.owners.get(id);
    const connection = host === undefined ? undefined : this.link(host);
    return connection ? { host: host!, connection } : undefined;
  }

  private remember(id: string, host: string): void {
    if (this.owners.has(id)) return;
    if (this.owners.size >= OWNERS_KEPT) this.owners.delete(this.owners.keys().next().value!);
    this.owners.set(id, host);
  }

  /**
   * The host a new session of the project runs on: `requested`, else the project's owner host (this front's
   * host for a project with none). A session runs where its project's directory is, so a requested host
   * other than the project's is refused (422). Null when this front's host runs it.
   */
  async sessionHost(projectId: string, requested: string | undefined): Promise<RemoteHost | null> {
    const { db, config } = this.deps;
    const project = await first(db.select({ id: db.t.projects.id, ownerHost: db.t.projects.ownerHost }).from(db.t.projects).where(eq(db.t.projects.id, projectId)));
    // An unknown project: the supervisor answers 404.
    if (!project) return null;
    const projectHost = project.ownerHost ?? config.host_name;
    if (requested !== undefined && requested !== projectHost) {
      throw new ProtocolError("validation_failed", 422, `host: project ${project.id} is on host ${projectHost}; its sessions run there (give host ${projectHost} or leave it out), not on ${JSON.stringify(requested.slice(0, 80))}`);
    }
    return await this.owner("project", project);
  }

  /**
   * The host a project is registered on: `requested` (this front's host when left out). A joined host must
   * be connected here (its path rules are checked there); any other name is refused (422).
   */
  async projectHost(requested: string | undefined): Promise<RemoteHost | null> {
    const me = this.deps.config.host_name;
    if (requested === undefined || requested === me) return null;
    const connection = this.link(requested);
    if (connection) return { host: requested, connection };
    if (await this.isJoinedHost(requested)) throw new ProtocolError("host_offline", 503, `host ${requested} is not connected to this gateway front`);
    throw new ProtocolError("validation_failed", 422, `host: ${JSON.stringify(requested.slice(0, 80))} is neither this gateway host (${me}) nor a joined host agent`);
  }
}

/** One request to a host's API (`/host/v1/...`); a connection lost before the answer is 503 `host_offline`. */
export async function callHost(remote: RemoteHost, method: string, path: string, init: { body?: BodyInit | null; headers?: HeadersInit; signal?: AbortSignal } = {}): Promise<Response> {
  try {
    return await remote.connection.fetch(new Request(`http://host${path}`, { method, body: init.body ?? null, headers: init.headers, signal: init.signal }));
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ProtocolError("host_offline", 503, `host ${remote.host} could not be reached: ${(error as Error).message.slice(0, 200)}`);
  }
}

/** A host's JSON answer as this front's: its status and body as the host gave them. */
export async function relayJson(response: Response): Promise<Response> {
  const body = await response.arrayBuffer();
  const headers: Record<string, string> = {};
  const type = response.headers.get("content-type");
  if (type) headers["Content-Type"] = type;
  return new Response(response.status === 204 ? null : body, { status: response.status, headers });
}

/** A host's JSON answer read as a value: its body on a 2xx, else the host's error raised as this front's. */
export async function hostResult<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => null)) as (T & { error?: string; message?: string }) | null;
  if (response.ok) return body as T;
  throw new ProtocolError(body?.error ?? "bad_gateway", response.status, body?.message ?? `the host answered ${response.status}`);
}
