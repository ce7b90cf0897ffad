// The host API a host agent serves to the fronts over each mux connection (docs/gateway-hosts.md, Host
// API): the owner-bound operations of its sessions (create: worktree, directory and daemon here, the row
// written by the front through the store; stop, resume, delete, the on-demand health check), the session
// proxy (streamed, SSE included: the same proxy code as a front's, so the daemon's token replaces the
// caller's and the front's abort ends the upstream exchange), the history of its stopped sessions (the fleet's reader, over the stores on this machine), and the
// project checks that need this machine's file system (path rules, hook status). A plain router:
// a handful of routes, and the proxy must not pay for body parsing. Only fronts reach it (the mux is the
// host's own outbound connection, opened with its credential).
import { realpathSync } from "node:fs";
import { ProtocolError } from "../../../protocol/errors.ts";
import type { AuthResult } from "../../auth/bearer.ts";
import type { GatewayContext } from "../../context.ts";
import { assertProjectPathAllowed, canonicalProjectPath } from "../../registry/projects.ts";
import { hookStatus } from "../../registry/hook-status.ts";
import type { StoppedHistory } from "../../fleet/history.ts";
import { parseFleetQuery } from "../../fleet/query.ts";
import { proxyRequest, type ProxyDeps } from "../../sessions/proxy.ts";
import type { ProjectRow } from "../../sessions/store.ts";
import type { SessionSupervisor } from "../../sessions/supervisor.ts";

/** What the host API drives: the host's supervisor. */
export type HostSessions = Pick<SessionSupervisor, "create" | "stop" | "resume" | "remove" | "get" | "proxyTargetResuming">;

export interface HostApiDeps {
  sessions: HostSessions;
  proxy: ProxyDeps;
  paths: Pick<GatewayContext, "dataDir" | "config">;
  project(id: string): Promise<ProjectRow | undefined>;
  /** Stopped sessions' history, read from their stores on this machine. */
  history: StoppedHistory;
}

/** Who proxied requests come from: the front, which authenticated and authorized the caller already. */
const FRONT: AuthResult = { family: "hst", principalId: null, scopes: [], username: null, credentialId: "front" };
const SESSION = /^\/host\/v1\/sessions\/(ses_[A-Za-z0-9]+)(\/[a-z-]+)?$/;
const PROXY = /^\/host\/v1\/sessions\/(ses_[A-Za-z0-9]+)\/proxy(\/.*)?$/;
const HISTORY = /^\/host\/v1\/sessions\/(ses_[A-Za-z0-9]+)\/(?:history|attachments\/([^/]+))$/;
const HOOK_STATUS = /^\/host\/v1\/projects\/([0-9a-f]{8})\/hook-status$/;

function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}

function failure(error: unknown): Response {
  if (error instanceof ProtocolError) return json(error.status, error.body());
  // The front's handler error hook logs why; the front learns only that it failed.
  throw error;
}

export function hostApi(deps: HostApiDeps): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const { pathname } = url;
    try {
      const proxied = PROXY.exec(pathname);
      if (proxied) {
        // The front's proxy path, so the one proxy implementation (path checks, headers, SSE, aborts) serves both.
        const front = new URL(`http://host/api/v1/sessions/${proxied[1]}/proxy${proxied[2] ?? ""}${url.search}`);
        return await proxyRequest(deps.proxy, deps.sessions, request, front, FRONT);
      }
      if (request.method === "POST" && pathname === "/host/v1/sessions") {
        // Created here: the worktree and the session directory are on this machine; the front writes the row (insert) as this host's.
        const body = (await request.json().catch(() => null)) as { project_id?: unknown; launch_mode?: unknown } | null;
        return json(201, await deps.sessions.create(body?.project_id, body?.launch_mode));
      }
      const history = request.method === "GET" ? HISTORY.exec(pathname) : null;
      if (history) {
        // The fleet's own history reader over this host's files; its errors keep the fleet envelope ({code}).
        const [, id, artifact] = history;
        if (artifact === undefined) {
          const q = parseFleetQuery(request.url, { checkpoint: "token", page: "token" }) as { checkpoint?: string; page?: string };
          return new Response(await deps.history.page(id!, q), { headers: { "content-type": "application/json" } });
        }
        const q = parseFleetQuery(request.url, { checkpoint: "token", offset: "uint", length: "uint" }) as { checkpoint?: string; offset?: number; length?: number };
        return json(200, await deps.history.attachment(id!, decodeURIComponent(artifact), q));
      }
      const session = SESSION.exec(pathname);
      if (session) {
        const [, id, action = ""] = session;
        const route = `${request.method} ${action}`;
        if (route === "POST /stop") return json(200, await deps.sessions.stop(id!));
        if (route === "POST /resume") return json(200, await deps.sessions.resume(id!));
        if (route === "GET /health") return json(200, await deps.sessions.get(id!));
        if (route === "DELETE ") {
          await deps.sessions.remove(id!);
          return new Response(null, { status: 204 });
        }
      }
      if (request.method === "POST" && pathname === "/host/v1/projects/check-path") {
        const body = (await request.json().catch(() => null)) as { path?: unknown } | null;
        if (typeof body?.path !== "string") throw new ProtocolError("validation_failed", 422, "path: expected a string");
        const canonical = canonicalProjectPath(body.path);
        assertProjectPathAllowed(body.path, realpathSync(canonical), deps.paths);
        return json(200, { path: canonical });
      }
      const hooks = HOOK_STATUS.exec(pathname);
      if (hooks && request.method === "GET") {
        const project = await deps.project(hooks[1]!);
        if (!project) throw new ProtocolError("not_found", 404, `no project ${hooks[1]}`);
        return json(200, hookStatus(project.path));
      }
      return json(404, { error: "not_found", message: `the host API has no route ${request.method} ${pathname}` });
    } catch (error) {
      return failure(error);
    }
  };
}
