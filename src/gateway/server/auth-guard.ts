// Bearer authentication for API routes, for use by every route group (core, OAuth-protected, registries).
import { ProtocolError } from "../../protocol/errors.ts";
import type { AuthResult } from "../auth/bearer.ts";
import type { GatewayContext } from "../context.ts";

export function authenticate(ctx: GatewayContext, request: Request): AuthResult {
  return ctx.bearer.verify(request.headers.get("authorization"));
}

/** 403 `insufficient_scope` unless the caller holds `scope`. */
export function requireScope(auth: AuthResult, scope: string): void {
  if (!auth.scopes.includes(scope)) {
    throw new ProtocolError("insufficient_scope", 403, `this route needs the '${scope}' scope`, {
      "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${scope}"`,
    });
  }
}
