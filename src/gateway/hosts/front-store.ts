// The session store a front serves to one joined host agent (docs/gateway-hosts.md, What a host may write):
// `POST /front/v1/store/<method>` `{ args: [...] }` -> `200 { result }` (a missing result is undefined), on
// that host's mux connection only, never on the public listener. The host agent's supervisor runs on it
// as `serve`'s runs on the database (sessions/store.ts). Every call is checked against the connection's
// host: the session rows it reads or writes are its own (owner_host), an insert is made its own, it reads
// a project only when the project or one of its sessions is on it, and a configuration only when such a
// project uses it. What it may change is the daemon's process fields, never the owner, the project or the
// current generation; a service credential carries this front's service catalog, not one the host names.
import { and, eq } from "drizzle-orm";
import { ProtocolError } from "../../protocol/errors.ts";
import { newId } from "../../util/ids.ts";
import type { GatewayContext } from "../context.ts";
import { first } from "../db/handle.ts";
import { errorResponse, jsonResponse } from "../server/errors.ts";
import type { InvalidationCause } from "../sessions/credentials.ts";
import { DbSessionStore } from "../sessions/db-store.ts";
import { ownedElsewhere } from "../sessions/ownership.ts";
import type { SessionPatch, SessionRow } from "../sessions/registry.ts";
import { enabledServices } from "../sessions/services.ts";
import { STORE_METHODS, STORE_PATH, type NewSessionRow, type StoreMethod } from "../sessions/store.ts";
import type { MuxHandler } from "./mux/connection.ts";
import { LAUNCH_MODES, type SessionState, type TransitionTrigger } from "../sessions/transitions.ts";

export type FrontStoreDeps = Pick<GatewayContext, "clock" | "config" | "dataDir" | "db" | "fleetChanges" | "logger" | "pepper">;

const STATES: readonly SessionState[] = ["starting", "running", "stopped", "failed", "cleanup_pending", "reaped"];
const TRIGGERS: readonly TransitionTrigger[] = ["create", "daemon_healthy", "health_check_failed", "daemon_exited", "spawn_failed", "stop", "idle_exit", "resume", "delete", "reconciliation"];
const CAUSES: readonly InvalidationCause[] = ["session_stopped", "watcher_daemon_exit", "reconciliation", "health_check_failed", "spawn_failed", "session_deleted"];
/** The fields a host may set on its session rows, with what each holds. */
const PATCH_FIELDS: Record<string, "int" | "string"> = { pid: "int", pidStartTicks: "string", port: "int", daemonEpoch: "string", bootstrapFile: "string" };

function invalid(message: string): ProtocolError {
  return new ProtocolError("validation_failed", 422, message);
}

function text(value: unknown, field: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 4096) throw invalid(`${field} must be a non-empty string`);
  return value;
}

function nullableText(value: unknown, field: string): string | null {
  return value === null ? null : text(value, field);
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== "string" || !allowed.includes(value as T)) throw invalid(`${field} must be one of ${allowed.join(", ")}`);
  return value as T;
}

function patchOf(value: unknown): SessionPatch {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid("patch must be an object");
  const patch: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const kind = PATCH_FIELDS[key];
    if (!kind) throw invalid(`patch.${key.slice(0, 40)} is not a field a host may set; allowed: ${Object.keys(PATCH_FIELDS).join(", ")}`);
    if (field !== null && (kind === "int" ? !Number.isSafeInteger(field) : typeof field !== "string")) throw invalid(`patch.${key} must be ${kind === "int" ? "an integer" : "a string"} or null`);
    patch[key] = field;
  }
  return patch as SessionPatch;
}

/** The store methods for the host `host`; each checks its arguments and the host's rights before the database store runs. */
/** The calls a host makes: the store's methods, and `announce` (its live daemons after it (re)connected). */
type FrontMethod = StoreMethod | "announce";
const FRONT_METHODS: readonly FrontMethod[] = [...STORE_METHODS, "announce"];
/** More daemons than one host runs: a larger announcement is refused whole. */
const MAX_ANNOUNCED = 10_000;

function methods(deps: FrontStoreDeps, store: DbSessionStore, host: string): Record<FrontMethod, (args: unknown[]) => Promise<unknown>> {
  /** The row, when it is this host's; undefined when there is none; 409 for another host's. */
  const own = async (id: unknown): Promise<SessionRow | undefined> => {
    const row = await store.session(text(id, "id"));
    if (row && row.ownerHost !== host) throw ownedElsewhere("session", row.id, row.ownerHost ?? "(none)");
    return row;
  };
  const ownOrMissing = async (id: unknown): Promise<SessionRow> => {
    const row = await own(id);
    if (!row) throw new ProtocolError("not_found", 404, `no session ${String(id).slice(0, 40)}`);
    return row;
  };
  /** Whether one of this host's sessions belongs to the project. */
  const hasSessionOf = async (projectId: string): Promise<boolean> => {
    const { sessions } = deps.db.t;
    return (await first(deps.db.select({ id: sessions.id }).from(sessions).where(and(eq(sessions.projectId, projectId), eq(sessions.ownerHost, host))).limit(1))) !== undefined;
  };
  const readableProject = async (id: string) => {
    const project = await store.project(id);
    if (!project) return undefined;
    if (project.ownerHost === host || (await hasSessionOf(project.id))) return project;
    throw ownedElsewhere("project", project.id, project.ownerHost ?? "(none)");
  };
  return {
    session: async ([id]) => await own(id),
    sessions: async () => (await store.sessions()).filter((row) => row.ownerHost === host),
    insert: async ([row]) => {
      if (typeof row !== "object" || row === null) throw invalid("row must be an object");
      const r = row as Record<string, unknown>;
      const insert: NewSessionRow = {
        id: text(r.id, "row.id"),
        projectId: text(r.projectId, "row.projectId"),
        launchMode: oneOf(r.launchMode, LAUNCH_MODES, "row.launchMode"),
        sessionDir: text(r.sessionDir, "row.sessionDir"),
        worktreePath: nullableText(r.worktreePath ?? null, "row.worktreePath"),
        worktreeBranch: nullableText(r.worktreeBranch ?? null, "row.worktreeBranch"),
        ownerHost: host,
      };
      if (!insert.id.startsWith("ses_")) throw invalid("row.id must be a session id (ses_...)");
      if (!(await store.project(insert.projectId))) throw new ProtocolError("not_found", 404, `no project ${insert.projectId.slice(0, 40)}`);
      if (await store.session(insert.id)) throw new ProtocolError("conflict", 409, `session ${insert.id} exists`);
      return await store.insert(insert);
    },
    update: async ([id, patch]) => {
      const row = await ownOrMissing(id);
      await store.update(row.id, patchOf(patch));
    },
    transition: async ([id, from, to, trigger, detail, patch]) => {
      const row = await own(id);
      if (!row) return false;
      if (!Array.isArray(from) || from.length === 0) throw invalid("from must be a non-empty array of states");
      const states = from.map((s, i) => oneOf(s, STATES, `from[${i}]`));
      return await store.transition(row.id, states, oneOf(to, STATES, "to"), oneOf(trigger, TRIGGERS, "trigger"), detail === undefined || detail === null ? undefined : text(detail, "detail"), patchOf(patch));
    },
    remove: async ([id]) => {
      const row = await own(id);
      if (row) await store.remove(row.id);
    },
    // The record as the database has it now, whatever row the host sent.
    view: async ([row]) => store.view(await ownOrMissing((row as { id?: unknown } | null)?.id)),
    issueCredential: async ([sessionId]) => {
      const row = await ownOrMissing(sessionId);
      // The services are this front's: its catalog, whatever the host's config says.
      return await store.issueCredential(row.id, enabledServices(deps.config));
    },
    invalidateCredentials: async ([sessionId, cause]) => {
      const row = await ownOrMissing(sessionId);
      await store.invalidateCredentials(row.id, oneOf(cause, CAUSES, "cause"));
    },
    project: async ([id]) => await readableProject(text(id, "id")),
    // The daemons the host runs, as it finds them after a (re)connection: recorded on their rows (the process
    // and port a front proxies to); a session the front no longer has is left to the host's own reconciliation.
    announce: async ([daemons]) => {
      if (!Array.isArray(daemons) || daemons.length > MAX_ANNOUNCED) throw invalid(`daemons must be an array of at most ${MAX_ANNOUNCED}`);
      const patches = daemons.map((d: Record<string, unknown> | null, i) => {
        if (typeof d !== "object" || d === null) throw invalid(`daemons[${i}] must be an object`);
        const patch = patchOf({ pid: d.pid, pidStartTicks: d.startTicks, port: d.port, daemonEpoch: d.daemonEpoch ?? null });
        if (patch.pid === null || patch.port === null || patch.pidStartTicks === null) throw invalid(`daemons[${i}]: pid, startTicks and port are required`);
        return { id: text(d.sessionId, `daemons[${i}].sessionId`), patch };
      });
      // Every row is checked before any is written: one of another host's refuses the whole announcement.
      const rows = await Promise.all(patches.map(({ id }) => own(id)));
      for (const [i, row] of rows.entries()) if (row) await store.update(row.id, patches[i]!.patch);
    },
    launchConfig: async ([name]) => {
      const configName = text(name, "configName");
      const { projects } = deps.db.t;
      for (const project of await deps.db.select({ id: projects.id, owner: projects.ownerHost }).from(projects).where(eq(projects.configName, configName))) {
        if (project.owner === host || (await hasSessionOf(project.id))) return await store.launchConfig(configName);
      }
      // Configurations may hold provider keys: only one a project of this host uses is sent to it.
      throw new ProtocolError("not_found", 404, `no project of host ${host} uses configuration '${configName.slice(0, 40)}'`);
    },
  };
}

/**
 * The handler of `/front/v1/store/*` for the host `host` (installed by the connect route on the host's
 * connection). Anything else is 404; errors keep the database store's status and body.
 */
export function frontStoreHandler(deps: FrontStoreDeps, host: string): MuxHandler {
  const store = new DbSessionStore(deps);
  const table = methods(deps, store, host);
  return async (request) => {
    const path = new URL(request.url).pathname;
    const name = path.startsWith(STORE_PATH) ? path.slice(STORE_PATH.length) : null;
    if (name === null || !(FRONT_METHODS as readonly string[]).includes(name)) {
      return jsonResponse(404, { error: "not_found", message: `no front route ${request.method} ${path.slice(0, 80)}; the store's methods are ${FRONT_METHODS.join(", ")}` });
    }
    if (request.method !== "POST") return jsonResponse(405, { error: "method_not_allowed", message: "the store's methods are POST" }, { Allow: "POST" });
    try {
      let body: unknown;
      try {
        body = await request.json();
      } catch {
        throw new ProtocolError("bad_request", 400, "the body must be JSON: { \"args\": [...] }");
      }
      const args = (body as { args?: unknown } | null)?.args;
      if (!Array.isArray(args)) throw invalid("args must be an array");
      const result = await table[name as FrontMethod](args);
      return jsonResponse(200, result === undefined ? {} : { result });
    } catch (error) {
      return errorResponse(error, undefined, newId("req", deps.clock.now()), deps.logger, { method: request.method, path });
    }
  };
}

/** Where a host's services requests go: this front's own listener (its edge authenticates the daemon's bearer). */
export type ServicesForward = (request: Request) => Promise<Response>;

const SERVICES_PREFIX = "/api/v1/services/";

/**
 * What a front serves on a host's connection: the store (above), and the services routes its daemons reach
 * through the host agent's loopback listener, handed to this front's own edge at `origin` as any request
 * (the daemon's bearer is checked there as on loopback). Nothing else of the API is reachable this way.
 */
export function frontHandler(deps: FrontStoreDeps, host: string, origin: string, services: ServicesForward): MuxHandler {
  const store = frontStoreHandler(deps, host);
  return async (request) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(SERVICES_PREFIX)) return store(request);
    const target = new URL(`${url.pathname}${url.search}`, origin);
    const headers = new Headers(request.headers);
    // The edge's Host check (DNS rebinding) sees this front's own address, not the name the host used.
    headers.set("host", target.host);
    return await services(new Request(target, { method: request.method, headers, body: request.body, signal: request.signal }));
  };
}
