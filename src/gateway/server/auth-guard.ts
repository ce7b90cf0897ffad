// Bearer authentication for API routes. The edge authenticates every /api request and checks the route's
// scope (auth/route-access.ts) before the app runs; handlers read the result with `authenticate`.
import { ProtocolError } from "../../protocol/errors.ts";
import type { AuthResult } from "../auth/bearer.ts";
import type { GatewayContext } from "../context.ts";

const verified = new WeakMap<Request, AuthResult>();

/** Records the edge's verification of a request. */
export function setVerifiedAuth(request: Request, auth: AuthResult): void {
  verified.set(request, auth);
}

/** The caller of a request: what the edge verified, else a verification now (throws the 401 or 503). */
export function authenticate(ctx: GatewayContext, request: Request): AuthResult {
  return verified.get(request) ?? ctx.bearer.verify(request.headers.get("authorization"));
}

export function insufficientScope(anyOf: readonly string[]): ProtocolError {
  const list = anyOf.map((s) => `'${s}'`).join(" or ");
  return new ProtocolError("insufficient_scope", 403, `this route needs the ${list} scope`, {
    "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${anyOf.join(" ")}"`,
  });
}

/** 403 `insufficient_scope` unless the caller holds `scope`. */
export function requireScope(auth: AuthResult, scope: string): void {
  if (!auth.scopes.includes(scope)) throw insufficientScope([scope]);
}
