// Where releases may come from: https anywhere, plain http only to this machine (a local mirror, the
// tests). A signature makes a tampered manifest fail, but plain http would still show an observer what
// is installed and let anyone on the path hold updates back.

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Why `url` may not be used for `what` (a sentence), or null when it may. */
export function insecureUrlProblem(url: string, what: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${what} '${url}' is not a URL`;
  }
  if (parsed.protocol === "https:") return null;
  if (parsed.protocol === "http:" && isLoopback(parsed.hostname)) return null;
  if (parsed.protocol === "http:") return `refusing ${what} ${url}: plain http is allowed only to this machine (localhost, 127.0.0.1, [::1]); use https`;
  return `refusing ${what} ${url}: only https (or http to this machine) is allowed`;
}
