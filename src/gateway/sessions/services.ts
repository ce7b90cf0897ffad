// The services routes a launched daemon uses at bootstrap (gateway.md, Services routes): who it is, what the
// gateway's `services` config block offers, and whether the subsystem is ready. A daemon credential sees
// the capability snapshot taken when its generation was issued; a machine caller sees the current config.
import { first } from "../db/handle.ts";
import { t } from "elysia";
import { elysiaApp } from "../../util/elysia-app.ts";
import { eq } from "drizzle-orm";
import { VERSION } from "../../version.ts";
import type { GatewayConfig } from "../config/types.ts";
import type { GatewayContext } from "../context.ts";
import { authenticate, type GuardDeps } from "../server/auth-guard.ts";
import { ErrorBody, UnauthorizedBody } from "../server/core-routes.ts";

const Capability = t.Object({ name: t.String(), modes: t.Array(t.String()) });
const Service = t.Object({ name: t.String(), capabilities: t.Array(Capability) });
export type ServiceEntry = typeof Service.static;

const IdentityResponse = t.Object({
  gateway: t.Object({ name: t.String(), version: t.String() }),
  caller: t.Object({
    kind: t.Union([t.Literal("daemon"), t.Literal("principal")]),
    session_id: t.Union([t.String(), t.Null()]),
    generation_id: t.Union([t.String(), t.Null()]),
    principal_id: t.Union([t.String(), t.Null()]),
  }),
});
const CapabilitiesResponse = t.Object({ services: t.Array(Service, { description: "enabled services with their enabled capabilities" }) });
const ReadinessResponse = t.Object({ ready: t.Boolean(), services: t.Array(t.Object({ name: t.String(), enabled: t.Boolean() })) });

/** The enabled services and their enabled capabilities (what a credential generation snapshots). */
export function enabledServices(config: GatewayConfig): ServiceEntry[] {
  return Object.entries(config.services)
    .filter(([, s]) => s.enabled)
    .map(([name, s]) => ({
      name,
      capabilities: Object.entries(s.capabilities)
        .filter(([, c]) => c.enabled)
        .map(([cap, c]) => ({ name: cap, modes: [...c.modes] })),
    }));
}

export type ServicesRouteDeps = GuardDeps & Pick<GatewayContext, "config" | "db">;

export function servicesRoutes(ctx: ServicesRouteDeps) {
  const detail = (summary: string, description: string) => ({ summary, description, tags: ["services"] });
  return elysiaApp({ name: "gateway-services" })
    .get(
      "/api/v1/services/identity",
      async ({ request }) => {
        const auth = await authenticate(ctx, request);
        const daemon = auth.family === "dsc";
        return {
          gateway: { name: ctx.config.display_name, version: VERSION },
          caller: { kind: daemon ? ("daemon" as const) : ("principal" as const), session_id: auth.sessionId ?? null, generation_id: daemon ? auth.credentialId : null, principal_id: auth.principalId },
        };
      },
      { response: { 200: IdentityResponse, 401: UnauthorizedBody, 403: ErrorBody }, detail: detail("Service identity", "Who the gateway is and who is calling; a daemon's first call with its service credential activates it. Needs a daemon credential or the `machine` scope.") },
    )
    .get(
      "/api/v1/services/capabilities",
      async ({ request }) => {
        const auth = await authenticate(ctx, request);
        if (auth.family === "dsc") {
          const row = await first(ctx.db.select({ capabilities: ctx.db.t.serviceCredentials.capabilities }).from(ctx.db.t.serviceCredentials).where(eq(ctx.db.t.serviceCredentials.generationId, auth.credentialId)));
          return { services: (row?.capabilities as ServiceEntry[] | null) ?? [] };
        }
        return { services: enabledServices(ctx.config) };
      },
      { response: { 200: CapabilitiesResponse, 401: UnauthorizedBody, 403: ErrorBody }, detail: detail("Configured service catalog", "The `services` block of the gateway config: enabled services and their enabled capabilities with modes. A daemon sees the snapshot taken when its credential was issued.") },
    )
    .get(
      "/api/v1/services/readiness",
      async ({ set }) => {
        let ready = true;
        try {
          await ctx.db.$count(ctx.db.t.gatewaySettings);
        } catch {
          ready = false;
        }
        if (!ready) set.status = 503;
        return { ready, services: Object.entries(ctx.config.services).map(([name, s]) => ({ name, enabled: s.enabled })) };
      },
      { response: { 200: ReadinessResponse, 503: ReadinessResponse, 401: UnauthorizedBody, 403: ErrorBody }, detail: detail("Services readiness", "Whether the services subsystem (its database) answers, and which configured services are enabled; 503 when not ready.") },
    );
}
