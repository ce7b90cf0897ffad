// The gateway's Elysia app: route groups, the OpenAPI document, and the error handler.
import { openapi } from "@elysiajs/openapi";
import type { Elysia } from "elysia";
import { elysiaApp } from "../../util/elysia-app.ts";
import { VERSION } from "../../version.ts";
import type { GatewayContext } from "../context.ts";
import { webRoutes } from "../web/routes.ts";
import { coreRoutes } from "./core-routes.ts";
import { oauthRoutes } from "../oauth/routes.ts";
import { loginRoutes } from "../auth/login-routes.ts";
import { errorResponse } from "./errors.ts";
import { apiGuard, Refusal } from "./auth-guard.ts";
import { requestMeta } from "./request-meta.ts";
import { htmlErrorResponse } from "../web/pages.ts";
import { sessionRoutes } from "../sessions/routes.ts";
import { servicesRoutes } from "../sessions/services.ts";
import { configurationRoutes } from "../registry/configuration-routes.ts";
import { projectRoutes } from "../registry/project-routes.ts";
import { fleetCatalogRoutes, fleetEventRoutes, fleetHistoryRoutes } from "../fleet/routes.ts";

export const OPENAPI_PATH = "/api/v1/openapi.json";

/** Route groups added by other parts of the gateway (OAuth, registries, sessions). */
export type RouteGroup = (ctx: GatewayContext) => Elysia<any, any, any, any, any, any, any>;

export function buildGatewayApp(ctx: GatewayContext, groups: RouteGroup[] = []) {
  let app = elysiaApp()
    // First: every route registered below, whatever group it comes from, is guarded on its dispatched path.
    .use(apiGuard(ctx))
    .onError(({ error, code, request }) => {
      if (error instanceof Refusal) return error.response;
      const { requestId } = requestMeta(request);
      const path = new URL(request.url).pathname;
      const res = errorResponse(error, code, requestId, ctx.logger, { method: request.method, path });
      return path.startsWith("/api/") || path.startsWith("/.well-known/") ? res : htmlErrorResponse(res.status);
    })
    .use(
      openapi({
        path: "/api/v1/openapi",
        specPath: OPENAPI_PATH,
        provider: null,
        documentation: {
          openapi: "3.1.0",
          info: { title: "agent gateway", version: VERSION, description: "Remote session gateway of agent. API routes need `Authorization: Bearer <token>` unless noted." },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "pat_ (personal access token), oat_ (OAuth access token) or dsc_ (daemon service credential)" } } },
          security: [{ bearer: [] }],
        },
        exclude: { paths: [/\/proxy(\/|$)/, /^\/(?!api\/|\.well-known\/)/] },
      }),
    )
    .use(coreRoutes(ctx))
    .use(oauthRoutes(ctx))
    .use(loginRoutes(ctx))
    .use(webRoutes(ctx))
    .use(configurationRoutes(ctx))
    .use(projectRoutes(ctx));
  app = app.use(sessionRoutes(ctx, ctx.sessions)).use(servicesRoutes(ctx)) as typeof app;
  app = app.use(fleetCatalogRoutes(ctx)).use(fleetEventRoutes(ctx)).use(fleetHistoryRoutes(ctx)) as typeof app;
  for (const group of groups) app = app.use(group(ctx)) as typeof app;
  return app;
}

/** The OpenAPI document, rendered without a server (for `agent print gateway-openapi`). */
export async function renderOpenApi(ctx: GatewayContext): Promise<unknown> {
  const res = await buildGatewayApp(ctx).handle(new Request(`http://localhost${OPENAPI_PATH}`));
  return res.json();
}
