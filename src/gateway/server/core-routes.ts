// GET /api/v1/health, /api/v1/version. Both answer without a token (probes, clients before login);
// health also verifies a bearer token when one is sent and then names the caller. Health reads the
// database on every call: a replica whose database cannot be reached answers 503, so a load balancer's
// probe takes it out of rotation until the database is back (decisions-gateway 62).
import { sql } from "drizzle-orm";
import { t } from "elysia";
import { elysiaApp } from "../../util/elysia-app.ts";
import { VERSION } from "../../version.ts";
import type { GatewayContext } from "../context.ts";
import { authenticate, type GuardDeps } from "./auth-guard.ts";
import { databaseUnavailable } from "../db/unavailable.ts";
import { DATABASE_RETRY_AFTER, noteDatabaseUnavailable } from "./errors.ts";

export const HealthResponse = t.Object(
  {
    status: t.Literal("ok"),
    name: t.String({ description: "display name of this gateway" }),
    migrated_at_startup: t.Boolean({ description: "whether a database migration ran when the gateway started" }),
    authenticated: t.Optional(
      t.Object({
        family: t.Union([t.Literal("pat"), t.Literal("oat"), t.Literal("dsc"), t.Literal("web")]),
        principal_id: t.Union([t.String(), t.Null()]),
        username: t.Union([t.String(), t.Null()]),
        scopes: t.Array(t.String()),
      }),
    ),
  },
  { additionalProperties: false },
);

export const HealthUnavailableResponse = t.Object(
  {
    status: t.Literal("unavailable"),
    name: t.String({ description: "display name of this gateway" }),
    migrated_at_startup: t.Boolean(),
    database: t.Literal("unavailable", { description: "what is unavailable: the database cannot be reached or used" }),
  },
  { additionalProperties: false },
);

export const VersionResponse = t.Object({
  version: t.String({ description: "gateway version" }),
  database: t.Object({ engine: t.Union([t.Literal("sqlite"), t.Literal("postgresql")]), version: t.String() }),
});

export const ErrorBody = t.Object({ error: t.String(), message: t.Optional(t.String()) });
export const UnauthorizedBody = t.Object({ error: t.Literal("unauthorized") }, { description: 'always the byte-identical body {"error":"unauthorized"}' });

export type CoreRouteDeps = GuardDeps & Pick<GatewayContext, "config" | "migrated" | "database" | "db" | "logger">;

export function coreRoutes(ctx: CoreRouteDeps) {
  return elysiaApp({ name: "gateway-core" })
    .get(
      "/api/v1/health",
      async ({ request, status, set }) => {
        try {
          await ctx.db.select({ one: sql`1` }).from(ctx.db.t.gatewaySettings).limit(1);
        } catch (error) {
          const code = databaseUnavailable(error);
          if (!code) throw error;
          noteDatabaseUnavailable(code, ctx.logger);
          const down: typeof HealthUnavailableResponse.static = { status: "unavailable", name: ctx.config.display_name, migrated_at_startup: ctx.migrated, database: "unavailable" };
          set.headers["retry-after"] = DATABASE_RETRY_AFTER;
          return status(503, down);
        }
        const body: typeof HealthResponse.static = { status: "ok", name: ctx.config.display_name, migrated_at_startup: ctx.migrated };
        if (request.headers.has("authorization")) {
          const auth = await authenticate(ctx, request);
          body.authenticated = {
            // A host credential is verified on the connect route only: here it was a 401 (route-access.ts).
            family: auth.family as Exclude<typeof auth.family, "hst">,
            principal_id: auth.principalId,
            username: auth.username,
            scopes: auth.scopes,
          };
        }
        return body;
      },
      {
        response: { 200: HealthResponse, 401: UnauthorizedBody, 503: t.Union([HealthUnavailableResponse, ErrorBody]) },
        detail: {
          summary: "Server status",
          description:
            "Without a token: status and name. With `Authorization: Bearer`, the token is verified (401 when invalid) and the caller is named. 503 with `status: \"unavailable\"` while the gateway's database cannot be reached (checked on every call).",
          tags: ["core"],
          security: [{}, { bearer: [] }],
        },
      },
    )
    .get(
      "/api/v1/version",
      () => ({ version: VERSION, database: ctx.database }),
      { response: { 200: VersionResponse }, detail: { summary: "Gateway and database engine versions", tags: ["core"], security: [] } },
    );
}
