// Which authority each API route needs: the scope check, done once at the edge for every /api route so no
// route can forget it. Target-object checks (which session a caller may touch) are a separate code path,
// in the routes that know the target (sessions/proxy.ts, sessions/services.ts).
//
// - public: no token (health and version probes, the OpenAPI document, OAuth endpoints with their own
//   client authentication, terminal sign-in at /api/v1/auth/). Health still verifies a token when one is sent (`optional`).
// - scoped: a valid bearer token holding at least one of `anyOf`; any other /api route needs `machine`
//   (deny by default), so a new management or fleet route is protected before anyone thinks of it.
// - host: the hosts' connect route, which takes a host credential (`hst_`) and nothing else; no other route
//   takes one (docs/gateway-hosts.md, Host credentials).

export type RouteAccess = { kind: "public" } | { kind: "optional" } | { kind: "scoped"; anyOf: readonly string[] } | { kind: "host" };

const PUBLIC: RouteAccess = { kind: "public" };
const OPTIONAL: RouteAccess = { kind: "optional" };
const MACHINE: RouteAccess = { kind: "scoped", anyOf: ["machine"] };
/** The session proxy (issue 10): the `machine` scope, or a daemon on its own session (target check in the proxy). */
const PROXY: RouteAccess = { kind: "scoped", anyOf: ["machine", "current_session"] };
/** Services routes serve a running daemon's bootstrap. */
const SERVICES: RouteAccess = { kind: "scoped", anyOf: ["current_session", "machine"] };

/** Where host agents open their connection (hosts/connect-route.ts). */
export const HOST_CONNECT_PATH = "/api/v1/hosts/connect";
const HOST: RouteAccess = { kind: "host" };

const PUBLIC_PATHS = new Set(["/api/v1/version", "/api/v1/openapi.json", "/api/v1/openapi"]);
const PROXY_PATH = /^\/api\/v1\/sessions\/[^/]+\/proxy(\/|$)/;

export function routeAccess(pathname: string): RouteAccess {
  if (pathname === "/api/v1/health") return OPTIONAL;
  if (pathname === HOST_CONNECT_PATH) return HOST;
  if (PUBLIC_PATHS.has(pathname) || pathname.startsWith("/api/v1/oauth/") || pathname.startsWith("/api/v1/auth/")) return PUBLIC;
  if (PROXY_PATH.test(pathname)) return PROXY;
  if (pathname.startsWith("/api/v1/services/")) return SERVICES;
  return MACHINE;
}
