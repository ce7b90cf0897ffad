// Registry changes in the audit log: who (principal or machine client), from where, what.
import type { GatewayContext } from "../context.ts";
import { authenticate, type GuardDeps } from "../server/auth-guard.ts";
import { requestMeta } from "../server/request-meta.ts";

export type RegistryAuditDeps = GuardDeps & Pick<GatewayContext, "audit">;

export async function auditRegistry(ctx: RegistryAuditDeps, request: Request, action: string, target: string): Promise<void> {
  const auth = await authenticate(ctx, request);
  await ctx.audit.record({ action, outcome: "success", principalId: auth.principalId, sourceIp: requestMeta(request).ip, target });
}
