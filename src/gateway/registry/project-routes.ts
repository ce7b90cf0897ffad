// /api/v1/projects (gateway.md, Endpoints: Projects). The edge has already checked the `machine` scope.
import { t } from "elysia";
import { elysiaApp } from "../../util/elysia-app.ts";
import { auditRegistry, type RegistryAuditDeps } from "./audit.ts";
import { type ProjectDeps, ProjectStore } from "./projects.ts";
import { CreateProjectBody, ProjectIdParams, ProjectResponse, RebindProjectBody, RegistryError } from "./schemas.ts";

const BASE = "/api/v1/projects";
const tags = ["projects"];

export function projectRoutes(ctx: ProjectDeps & RegistryAuditDeps) {
  const store = new ProjectStore(ctx);
  return elysiaApp({ name: "gateway-projects" })
    .get(BASE, async () => await store.list(), {
      response: { 200: t.Array(ProjectResponse) },
      detail: { summary: "List projects with their derived hook status", tags },
    })
    .post(
      BASE,
      async ({ body, request, set }) => {
        const project = await store.register(body.path, body.config_name, body.host);
        await auditRegistry(ctx, request, "project.register", project.id);
        set.status = 201;
        return project;
      },
      {
        body: CreateProjectBody,
        response: { 201: ProjectResponse, 400: RegistryError, 409: RegistryError, 422: RegistryError, 503: RegistryError },
        detail: {
          summary: "Register a project directory",
          description:
            "The path is canonicalized (symlinks resolved). 422 when the directory or the configuration does not exist; 409 when the canonical path is already registered; 400 `path_not_allowed` for the filesystem root, a system directory, the home directory of the gateway's user, or a directory that is, is inside or contains the gateway's data directory or another of its secrets. With `host` naming a joined host agent, the path is checked (and canonicalized) on that host, and the project is that host's; 503 `host_offline` when it is not connected to this front, 422 for a name that is neither this gateway host nor a joined host.",
          tags,
        },
      },
    )
    .get(BASE + "/:id", async ({ params }) => await store.get(params.id), {
      params: ProjectIdParams,
      response: { 200: ProjectResponse, 404: RegistryError },
      detail: { summary: "One project", tags },
    })
    .put(
      BASE + "/:id",
      async ({ params, body, request }) => {
        const project = await store.rebind(params.id, body.config_name);
        await auditRegistry(ctx, request, "project.rebind", project.id);
        return project;
      },
      {
        params: ProjectIdParams,
        body: RebindProjectBody,
        response: { 200: ProjectResponse, 404: RegistryError, 422: RegistryError },
        detail: { summary: "Bind a project to another configuration", description: "404 when the project or the configuration is missing.", tags },
      },
    )
    .delete(
      BASE + "/:id",
      async ({ params, request }) => {
        await store.remove(params.id);
        await auditRegistry(ctx, request, "project.remove", params.id);
        return new Response(null, { status: 204 });
      },
      {
        params: ProjectIdParams,
        response: { 404: RegistryError, 409: RegistryError },
        detail: { summary: "Unregister a project", description: "204; 409 while sessions of the project exist.", tags },
      },
    );
}
