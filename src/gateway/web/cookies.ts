// Cookie names and attributes: `__Host-` + Secure under TLS; HttpOnly, SameSite=Strict, Path=/ always.
// (Browsers refuse `__Host-` cookies without Secure, so plaintext loopback uses the bare names.)

export function sessionCookieName(tls: boolean): string {
  return tls ? "__Host-agent_session" : "agent_session";
}

export function loginCsrfCookieName(tls: boolean): string {
  return tls ? "__Host-agent_login_csrf" : "agent_login_csrf";
}

export function serializeCookie(name: string, value: string, tls: boolean, maxAgeSecs?: number): string {
  const parts = [`${name}=${value}`, "Path=/", "HttpOnly", "SameSite=Strict"];
  if (tls) parts.push("Secure");
  if (maxAgeSecs !== undefined) parts.push(`Max-Age=${maxAgeSecs}`);
  return parts.join("; ");
}

export function clearCookie(name: string, tls: boolean): string {
  return serializeCookie(name, "", tls, 0);
}

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
