// What a request is addressed to, read once at the edge: the Host it names (only the gateway's own names are
// served; anything else is 421 before routing) and the path in one canonical form. The edge, the auth guard
// and the router all work on the URL built here, so no request can be read one way when it is authorized
// and another way when it is dispatched.
import { hostname as machineHostname, networkInterfaces } from "node:os";
import { jsonResponse } from "./errors.ts";

export interface HostPolicy {
  /** Whether a Host header value names this gateway. */
  permits(host: string): boolean;
  /** The names served, for the 421 message. */
  readonly names: readonly string[];
}

export interface HostPolicyInput {
  listenAddress: string;
  port: number;
  tls: boolean;
  externalUrl?: string;
  /** The machine's host name (default: os.hostname()). */
  machineName?: string;
  /** Addresses of this machine's interfaces, served when the listen address is a wildcard (default: os.networkInterfaces()). */
  interfaceAddresses?: readonly string[];
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARDS = new Set(["0.0.0.0", "::"]);

/** An address as a Host header names it: IPv6 in brackets, without a zone. */
function bracketed(address: string): string {
  const bare = address.split("%")[0]!.toLowerCase();
  return bare.includes(":") ? `[${bare}]` : bare;
}

function localAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) for (const entry of list ?? []) out.push(entry.address);
  return out;
}

/** Splits a Host header value into a lowercase name (IPv6 kept in brackets) and its port; null when malformed. */
export function parseHost(value: string): { name: string; port: number | null } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?\.?)(?::([0-9]{1,5}))?$/.exec(value);
  if (!match) return null;
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { name: match[1]!.toLowerCase().replace(/\.$/, ""), port };
}

export function hostPolicy(input: HostPolicyInput): HostPolicy {
  const names = new Set(LOOPBACK_NAMES);
  const ports = new Set([input.port]);
  if (WILDCARDS.has(input.listenAddress)) for (const address of input.interfaceAddresses ?? localAddresses()) names.add(bracketed(address));
  else names.add(bracketed(input.listenAddress));
  const machine = (input.machineName ?? machineHostname()).toLowerCase();
  if (machine) {
    names.add(machine);
    names.add(machine.split(".")[0]!);
  }
  if (input.externalUrl) {
    const external = new URL(input.externalUrl);
    names.add(external.hostname.toLowerCase());
    ports.add(external.port ? Number(external.port) : external.protocol === "https:" ? 443 : 80);
  }
  return {
    names: [...names],
    permits(value) {
      const host = parseHost(value);
      return host !== null && names.has(host.name) && (host.port === null || ports.has(host.port));
    },
  };
}

/** The request as the rest of the gateway reads it. */
export interface RequestTarget {
  /** The canonical URL: the scheme of this listener, a fixed authority, the path and the query. */
  url: URL;
  pathname: string;
  /** The origin the client addressed (scheme and its Host header), for same-origin checks. */
  origin: string;
}

/**
 * The authority of every URL the app routes. The router derives paths by position (it assumes an authority of
 * at least a few characters), so the client's Host, which may be as short as one character, never reaches it.
 */
export const APP_AUTHORITY = "gateway.internal";

/** Encoded separators and dots, NULs, backslashes and empty segments: refused rather than normalized. */
const AMBIGUOUS_PATH = /%(?:2f|5c|2e|00)|\\|\/\//i;

/** The canonical target of a request, or the refusal (421 for a Host that does not name this gateway, 400 for a path that is not canonical). */
export function readTarget(request: Request, policy: HostPolicy, tls: boolean): RequestTarget | Response {
  const host = request.headers.get("host") ?? "";
  if (!policy.permits(host)) {
    return jsonResponse(421, { error: "misdirected_request", message: "the Host header does not name this gateway (set auth.external_url to the name clients use)" });
  }
  // Bun builds request.url from the Host and the request target; its path is everything from the first "/"
  // after the scheme's "//".
  const raw = request.url;
  const start = raw.indexOf("/", raw.indexOf("//") + 2);
  const query = raw.indexOf("?", start);
  const rawPath = start === -1 ? "" : raw.slice(start, query === -1 ? undefined : query);
  const search = start === -1 || query === -1 ? "" : raw.slice(query);
  if (!rawPath.startsWith("/") || AMBIGUOUS_PATH.test(rawPath) || /[^\x21-\x7e]/.test(rawPath)) return invalidPath();
  const scheme = tls ? "https" : "http";
  const url = new URL(`${scheme}://${APP_AUTHORITY}${rawPath}${search}`);
  // Anything the URL parser would still rewrite ("." or ".." segments) is refused, not silently resolved.
  if (url.pathname !== rawPath) return invalidPath();
  return { url, pathname: url.pathname, origin: `${scheme}://${host.toLowerCase()}` };
}

function invalidPath(): Response {
  return jsonResponse(400, { error: "invalid_request", message: "the request path must be canonical: no empty segments, '.' or '..' segments, backslashes, or encoded '/', '\\', '.' or NUL" });
}
