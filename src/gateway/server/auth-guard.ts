// Bearer authentication and the scope check for API routes. The edge decides them for every /api request
// before the app runs (authorizeApi); the app's guard then checks, on the path the router actually
// dispatched, that this decision was taken on that same path, and takes it itself when the app is reached
// without the edge. Handlers read the caller with `authenticate`.
import { elysiaApp } from "../../util/elysia-app.ts";
import { ProtocolError } from "../../protocol/errors.ts";
import { UNAUTHORIZED_BODY, type AuthResult } from "../auth/bearer.ts";
import { routeAccess } from "../auth/route-access.ts";
import type { GatewayContext } from "../context.ts";
import { jsonResponse } from "./errors.ts";

/** What the edge decided for a request: the path it decided on, and the caller (none on a public route). */
interface EdgeDecision {
  pathname: string;
  auth: AuthResult | undefined;
}

const decisions = new WeakMap<Request, EdgeDecision>();

/** Records the edge's decision on a request. */
export function setEdgeDecision(request: Request, pathname: string, auth: AuthResult | undefined): void {
  decisions.set(request, { pathname, auth });
}

const UNAUTHORIZED_HEADERS = { "WWW-Authenticate": 'Bearer error="invalid_token"' };

export function insufficientScope(anyOf: readonly string[]): ProtocolError {
  const list = anyOf.map((s) => `'${s}'`).join(" or ");
  return new ProtocolError("insufficient_scope", 403, `this route needs the ${list} scope`, {
    "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${anyOf.join(" ")}"`,
  });
}

/**
 * Authentication and the route's scope check for the /api path `pathname`: a refusal as a response (no
 * exception: rejecting a bad token costs about what accepting a good one does), else the caller (undefined
 * on a public route, or an optional one called without a token).
 */
/** What authentication uses (the bearer verifier); routes that call `authenticate` include it in their deps. */
export type GuardDeps = Pick<GatewayContext, "bearer">;

export async function authorizeApi(ctx: GuardDeps, request: Request, pathname: string): Promise<Response | AuthResult | undefined> {
  const access = routeAccess(pathname);
  if (access.kind === "public") return undefined;
  const header = request.headers.get("authorization");
  if (header === null && access.kind === "optional") return undefined;
  const auth = access.kind === "host" ? await ctx.bearer.checkHost(header) : await ctx.bearer.check(header);
  if (auth === "unauthorized") return jsonResponse(401, UNAUTHORIZED_BODY, UNAUTHORIZED_HEADERS);
  if (auth === "unavailable") return jsonResponse(503, { error: "unavailable", message: "authentication is temporarily unavailable" });
  if (access.kind === "scoped" && !access.anyOf.some((s) => auth.scopes.includes(s))) {
    const error = insufficientScope(access.anyOf);
    return jsonResponse(error.status, error.body(), error.headers);
  }
  return auth;
}

/** A refusal decided by the guard, answered as it is by the app's error handler. */
export class Refusal extends Error {
  constructor(readonly response: Response) {
    super(`refused with ${response.status}`);
  }
}

/**
 * The app's first hook, before any route's own hooks, body handling or handler: the dispatched path must be
 * the one the edge authorized; an /api path reached without the edge is authorized here.
 */
export function apiGuard(ctx: GuardDeps) {
  return elysiaApp({ name: "gateway-api-guard" }).onTransform({ as: "global" }, async ({ request, path }) => {
    const decision = decisions.get(request);
    if (decision) {
      if (decision.pathname === path) return;
      throw new ProtocolError("invalid_request", 400, "the request path could not be read unambiguously");
    }
    if (!path.startsWith("/api/")) return;
    const checked = await authorizeApi(ctx, request, path);
    if (checked instanceof Response) throw new Refusal(checked);
    if (checked) decisions.set(request, { pathname: path, auth: checked });
  });
}

/** The caller of a request: what was authorized for it, else a verification now (throws the 401 or 503). */
export async function authenticate(ctx: GuardDeps, request: Request): Promise<AuthResult> {
  return decisions.get(request)?.auth ?? (await ctx.bearer.verify(request.headers.get("authorization")));
}

/** 403 `insufficient_scope` unless the caller holds `scope`. */
export function requireScope(auth: AuthResult, scope: string): void {
  if (!auth.scopes.includes(scope)) throw insufficientScope([scope]);
}
