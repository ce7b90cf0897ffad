// Security headers on every response, and the body-size rules of the edge.

const HTML_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/** The security headers a response gets, given its content type and whether it already has a Cache-Control. */
function securityHeaders(contentType: string, tls: boolean, oauth: boolean, hasCacheControl: boolean): [string, string][] {
  const html = contentType.startsWith("text/html");
  const out: [string, string][] = [
    ["X-Content-Type-Options", "nosniff"],
    ["X-Frame-Options", "DENY"],
    ["Content-Security-Policy", html ? HTML_CSP : API_CSP],
    // same-origin (not no-referrer) on pages: with no-referrer, browsers send "Origin: null" on form posts.
    ["Referrer-Policy", html ? "same-origin" : "no-referrer"],
    ["Cross-Origin-Opener-Policy", "same-origin"],
    ["Cross-Origin-Resource-Policy", "same-origin"],
    ["Permissions-Policy", "camera=(), microphone=(), geolocation=()"],
  ];
  if (oauth) out.push(["Cache-Control", "no-store"], ["Pragma", "no-cache"]);
  else if (!hasCacheControl) out.push(["Cache-Control", "no-store"]);
  if (tls) out.push(["Strict-Transport-Security", "max-age=31536000"]);
  return out;
}

/** Names withSecurityHeaders sets or removes, lowercase (Cache-Control only when absent, so not here). */
const REPLACED = new Set(["x-content-type-options", "x-frame-options", "content-security-policy", "referrer-policy", "cross-origin-opener-policy", "cross-origin-resource-policy", "permissions-policy", "strict-transport-security", "x-powered-by"]);

export function withSecurityHeaders(response: Response, tls: boolean, oauth = false): Response {
  let res = response;
  try {
    res.headers.set("X-Content-Type-Options", "nosniff");
  } catch {
    res = new Response(res.body, res); // immutable headers (e.g. a passed-through fetch response)
  }
  const h = res.headers;
  for (const [name, value] of securityHeaders(h.get("Content-Type") ?? "", tls, oauth, h.has("Cache-Control"))) h.set(name, value);
  h.delete("X-Powered-By");
  return res;
}

/**
 * The same headers for a response still being built from header pairs (the session proxy's): the pairs
 * without those they replace, then the security headers. One Headers build instead of a set per header.
 */
export function pairsWithSecurityHeaders(pairs: [string, string][], tls: boolean): [string, string][] {
  let contentType = "";
  let hasCacheControl = false;
  const out: [string, string][] = [];
  for (const pair of pairs) {
    const lower = pair[0].toLowerCase();
    if (lower === "content-type") contentType = pair[1];
    else if (lower === "cache-control") hasCacheControl = true;
    else if (REPLACED.has(lower)) continue;
    out.push(pair);
  }
  for (const pair of securityHeaders(contentType, tls, false, hasCacheControl)) out.push(pair);
  return out;
}

/** Small bodies on authentication, OAuth and web form routes; a larger cap elsewhere. */
export const SMALL_BODY_LIMIT = 16 * 1024;
export const API_BODY_LIMIT = 1024 * 1024;

export function bodyLimitFor(pathname: string): number {
  if (pathname.startsWith("/api/v1/oauth/") || !pathname.startsWith("/api/")) return SMALL_BODY_LIMIT;
  return API_BODY_LIMIT;
}
