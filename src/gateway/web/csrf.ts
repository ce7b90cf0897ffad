// Cross-site request checks for state-changing forms: Sec-Fetch-Site and Origin must say same-origin,
// and the form's CSRF token must match the session's (or, for the login form, the login cookie).
import { timingSafeEqual } from "node:crypto";
import { requestMeta } from "../server/request-meta.ts";

export function sameOrigin(request: Request, externalUrl: string | undefined): boolean {
  // Sec-Fetch-Site is set by the browser and cannot be forged by a page: when present it decides.
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") return false;
  const origin = request.headers.get("origin");
  // Browsers send "Origin: null" for privacy-sensitive contexts; accept it only with Sec-Fetch-Site vouching.
  if (origin === null || origin === "null") return site === "same-origin" || (origin === null && site === null);
  // The edge records the scheme of this listener and the Host the browser used (request.url is canonical).
  return origin === (requestMeta(request).origin ?? new URL(request.url).origin) || (externalUrl !== undefined && origin === new URL(externalUrl).origin);
}

export function tokensMatch(expected: string | undefined, presented: unknown): boolean {
  if (!expected || typeof presented !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
