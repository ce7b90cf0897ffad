// Security headers on every response, and the body-size rules of the edge.

const HTML_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

export function withSecurityHeaders(response: Response, tls: boolean, oauth = false): Response {
  let res = response;
  try {
    res.headers.set("X-Content-Type-Options", "nosniff");
  } catch {
    res = new Response(res.body, res); // immutable headers (e.g. a passed-through fetch response)
  }
  const h = res.headers;
  const html = (h.get("Content-Type") ?? "").startsWith("text/html");
  h.set("X-Content-Type-Options", "nosniff");
  h.set("X-Frame-Options", "DENY");
  h.set("Content-Security-Policy", html ? HTML_CSP : API_CSP);
  // same-origin (not no-referrer) on pages: with no-referrer, browsers send "Origin: null" on form posts.
  h.set("Referrer-Policy", html ? "same-origin" : "no-referrer");
  h.set("Cross-Origin-Opener-Policy", "same-origin");
  h.set("Cross-Origin-Resource-Policy", "same-origin");
  h.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  if (oauth) {
    h.set("Cache-Control", "no-store");
    h.set("Pragma", "no-cache");
  } else if (!h.has("Cache-Control")) h.set("Cache-Control", "no-store");
  if (tls) h.set("Strict-Transport-Security", "max-age=31536000");
  h.delete("X-Powered-By");
  return res;
}

/** Small bodies on authentication, OAuth and web form routes; a larger cap elsewhere. */
export const SMALL_BODY_LIMIT = 16 * 1024;
export const API_BODY_LIMIT = 1024 * 1024;

export function bodyLimitFor(pathname: string): number {
  if (pathname.startsWith("/api/v1/oauth/") || !pathname.startsWith("/api/")) return SMALL_BODY_LIMIT;
  return API_BODY_LIMIT;
}

/** Reads at most `limit` bytes of a body; undefined when it is longer. */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array | undefined> {
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
