// /api/v1/sessions: create, list, read (with the on-demand health check), stop, resume, delete. The edge
// has already required the `machine` scope (route-access.ts); the proxy is handled before the app (proxy.ts).
import { t } from "elysia";
import { elysiaApp } from "../../util/elysia-app.ts";
import { ErrorBody, UnauthorizedBody } from "../server/core-routes.ts";
import { auditRegistry, type RegistryAuditDeps } from "../registry/audit.ts";
import type { GatewayContext } from "../context.ts";
import { callHost, relayJson, type RemoteHost } from "../hosts/routing.ts";
import type { SessionView } from "./registry.ts";
import type { SessionSupervisor } from "./supervisor.ts";

const State = t.Union([t.Literal("starting"), t.Literal("running"), t.Literal("stopped"), t.Literal("failed"), t.Literal("cleanup_pending"), t.Literal("reaped")]);
const Nullable = <T extends ReturnType<typeof t.String>>(s: T) => t.Union([s, t.Null()]);

export const SessionRecord = t.Object({
  id: t.String({ description: "session id (ses_...); also the daemon's session id" }),
  project_id: t.String(),
  launch_mode: t.Union([t.Literal("project_direct"), t.Literal("worktree_backed")]),
  state: State,
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
  pid: t.Union([t.Integer(), t.Null()], { description: "daemon process id while one runs" }),
  port: t.Union([t.Integer(), t.Null()], { description: "daemon port on 127.0.0.1 while one runs" }),
  daemon_epoch: Nullable(t.String({ description: "epoch of the latest daemon generation" })),
  owner_host: Nullable(t.String({ description: "host_name of the gateway that supervises the session (its daemon and directory are on that host); null for a record written before owners were recorded and not yet claimed" })),
  host_online: t.Boolean({ description: "whether the owner host is online: a front holds its connection (or it is a front, which is online while it runs); false: its daemon may still run, but no front can reach it now" }),
  worktree: t.Union([t.Object({ path: t.String(), branch: Nullable(t.String()) }), t.Null()]),
  transitions: t.Array(
    t.Object({
      from: t.Union([State, t.Null()]),
      to: State,
      trigger: t.String({ description: "create, daemon_healthy, health_check_failed, daemon_exited, spawn_failed, stop, resume, delete, reconciliation" }),
      detail: Nullable(t.String()),
      at: t.String({ format: "date-time" }),
    }),
    { description: "every state change, oldest first" },
  ),
  service_credentials: t.Array(
    t.Object({
      generation_id: t.String(),
      state: t.Union([t.Literal("pending"), t.Literal("active"), t.Literal("invalidated")]),
      created_at: t.String({ format: "date-time" }),
      activated_at: Nullable(t.String({ format: "date-time" })),
      invalidated_at: Nullable(t.String({ format: "date-time" })),
      last_used_at: Nullable(t.String({ format: "date-time" })),
      invalidation_cause: Nullable(t.String()),
    }),
  ),
});

const Id = t.Object({ id: t.String({ description: "session id (ses_...)" }) });
/** A host's answer relayed as it is: Elysia sends a returned Response unchanged (no response schema applies). */
const asIs = (response: Response) => response as unknown as SessionView;

const common = { 401: UnauthorizedBody, 403: ErrorBody, 404: ErrorBody };
const tags = ["sessions"];

/** A front's routes reach another host's sessions through `ctx.routing` (hosts/routing.ts); without it every session is this host's. */
export function sessionRoutes(ctx: RegistryAuditDeps & Partial<Pick<GatewayContext, "routing">>, supervisor: SessionSupervisor) {
  const remote = async (id: string): Promise<RemoteHost | null> => (ctx.routing ? await ctx.routing.session(id) : null);
  /** The owner host's answer to an operation on its session (status and body as it gave them), audited when it succeeded. */
  const forward = async (to: RemoteHost, request: Request, method: string, path: string, action: string, id: string, body?: unknown) => {
    const answer = await callHost(to, method, path, body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } });
    const relayed = await relayJson(answer);
    if (answer.ok) await auditRegistry(ctx, request, action, id);
    return asIs(relayed);
  };
  return elysiaApp({ name: "gateway-sessions" })
    .get("/api/v1/sessions", () => supervisor.list(), { response: { 200: t.Array(SessionRecord), ...common }, detail: { summary: "List sessions", tags } })
    .post(
      "/api/v1/sessions",
      async ({ body, set, request }) => {
        const host = ctx.routing ? await ctx.routing.sessionHost(body.project_id, body.host) : null;
        if (host) {
          const answer = await callHost(host, "POST", "/host/v1/sessions", { body: JSON.stringify({ project_id: body.project_id, launch_mode: body.launch_mode }), headers: { "content-type": "application/json" } });
          const text = await answer.text();
          if (answer.status === 201) await auditRegistry(ctx, request, "session.create", (JSON.parse(text) as { id: string }).id);
          return asIs(new Response(text, { status: answer.status, headers: { "Content-Type": answer.headers.get("content-type") ?? "application/json" } }));
        }
        const view = await supervisor.create(body.project_id, body.launch_mode);
        await auditRegistry(ctx, request, "session.create", view.id);
        set.status = 201;
        return view;
      },
      {
        body: t.Object(
          {
            project_id: t.String(),
            launch_mode: t.String({ description: "project_direct or worktree_backed" }),
            host: t.Optional(t.String({ minLength: 1, maxLength: 255, description: "the host the session runs on (its owner_host); default: the project's owner host. A session runs where its project's directory is: another host than the project's is refused (422)" })),
          },
          { additionalProperties: false },
        ),
        response: { 201: SessionRecord, 409: ErrorBody, 422: ErrorBody, 503: ErrorBody, ...common },
        detail: { summary: "Create a session", description: "201 with the record in `starting`, supervised by the project's owner host (this gateway host, or a joined host agent this front is connected to: the request goes to it); the daemon starts in the background (poll GET until running or failed). `worktree_backed` first creates a git worktree of the project on branch `agent/<id>`. 409 `owned_by_other_host` for a project another gateway front supervises; 503 `host_offline` for a project of a joined host that is not connected to this front.", tags },
      },
    )
    .get("/api/v1/sessions/:id", async ({ params }) => {
        // The owner's on-demand health check when it is reachable; the record as stored otherwise.
        const to = await remote(params.id).catch(() => null);
        if (to) return asIs(await relayJson(await callHost(to, "GET", `/host/v1/sessions/${params.id}/health`)));
        return supervisor.get(params.id);
      }, { params: Id, response: { 200: SessionRecord, ...common }, detail: { summary: "Read a session", description: "For a running session this gateway host supervises the daemon's health is checked first; an unreachable daemon makes it `failed` before the answer. Another host's session is answered as recorded.", tags } })
    .post("/api/v1/sessions/:id/stop", async ({ params, request }) => {
        const to = await remote(params.id);
        if (to) return forward(to, request, "POST", `/host/v1/sessions/${params.id}/stop`, "session.stop", params.id);
        const view = await supervisor.stop(params.id);
        await auditRegistry(ctx, request, "session.stop", params.id);
        return view;
      }, { params: Id, response: { 200: SessionRecord, 409: ErrorBody, ...common }, detail: { summary: "Stop a running session", description: "Terminate request to the daemon, SIGTERM when it does not answer, SIGKILL after `stop_timeout_secs`; its service credential is invalidated. 409 when not running, or `owned_by_other_host` when another gateway host supervises it.", tags } })
    .post("/api/v1/sessions/:id/resume", async ({ params, request }) => {
        const to = await remote(params.id);
        if (to) return forward(to, request, "POST", `/host/v1/sessions/${params.id}/resume`, "session.resume", params.id);
        const view = await supervisor.resume(params.id);
        await auditRegistry(ctx, request, "session.resume", params.id);
        return view;
      }, { params: Id, response: { 200: SessionRecord, 409: ErrorBody, 503: ErrorBody, ...common }, detail: { summary: "Resume a stopped or failed session", description: "Launches a fresh daemon (new epoch, new service credential generation) and answers once it runs. 409 when already running, or `owned_by_other_host` when another gateway host supervises it; 503 when the daemon could not start.", tags } })
    .delete(
      "/api/v1/sessions/:id",
      async ({ params, set, request }) => {
        const to = await remote(params.id);
        if (to) return forward(to, request, "DELETE", `/host/v1/sessions/${params.id}`, "session.delete", params.id);
        await supervisor.remove(params.id);
        await auditRegistry(ctx, request, "session.delete", params.id);
        set.status = 204;
        return new Response(null, { status: 204 });
      },
      { params: Id, response: { 409: ErrorBody, 503: ErrorBody, ...common }, detail: { summary: "Delete a session", description: "Stops its daemon, removes the worktree of a worktree_backed session, the session directory (transcript, store, logs, credential) and the record; 204. Read its stopped history first to keep it. 409 `owned_by_other_host` when another gateway host supervises it.", tags } },
    );
}
