// The environment a session's pre-run script and daemon start with: a small base copied from the gateway's
// own environment (what a program needs to run as this user on this machine: PATH, HOME, the user's name,
// locale, time zone, temp dir, XDG dirs, TLS trust and proxy settings), plus the variables the session's
// registered configuration names. Nothing else of the gateway's environment (provider keys the
// configuration does not name, the gateway's own tokens, anything its operator exported) reaches them.
// The list is documented in docs/gateway-sessions.md ("The environment of a session").
import { readFileSync } from "node:fs";
import { isParseFailure, parseConfigText } from "../../config/parse.ts";

/** Copied from the gateway's environment when set. */
export const BASE_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TERM",
  // The daemon's data root, auth profiles and config dirs resolve from these, as in a local session.
  "XDG_DATA_HOME",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",
  // Reaching providers from this machine: its extra CAs and its proxy.
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
];
/** Every `LC_*` locale variable is copied too. */
const BASE_ENV_PREFIXES = ["LC_"];
/** When the gateway itself has no PATH. */
const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/** `${NAME}` and `${NAME:-command}` references (a `$$` is a literal dollar, never a reference). */
const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;

/**
 * The variable names a registered configuration file names: its `${NAME}` references (in any string value),
 * the `pass_env` lists of its stdio tool servers, and `OTEL_*` when it has a `telemetry` block (those
 * variables override the block). A file that does not parse names nothing (the daemon reports it).
 */
export function namedVariables(configFile: string): Set<string> {
  const names = new Set<string>();
  let text: string;
  try {
    text = readFileSync(configFile, "utf8");
  } catch {
    return names;
  }
  const parsed = parseConfigText(configFile, text.replace(/^\uFEFF/, ""), configFile.endsWith(".toml") ? "toml" : "yaml");
  if (isParseFailure(parsed) || !parsed.data || typeof parsed.data !== "object") return names;
  const doc = parsed.data as Record<string, unknown>;
  const walk = (value: unknown): void => {
    if (typeof value === "string") {
      for (const m of value.matchAll(REFERENCE)) if (m[1]) names.add(m[1]);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object" && !(value instanceof Date)) Object.values(value).forEach(walk);
  };
  walk(doc);
  const servers = doc.mcp_servers;
  if (servers && typeof servers === "object") {
    for (const server of Object.values(servers as Record<string, unknown>)) {
      const passEnv = (server as { pass_env?: unknown } | null)?.pass_env;
      if (Array.isArray(passEnv)) for (const name of passEnv) if (typeof name === "string") names.add(name);
    }
  }
  if (doc.telemetry && typeof doc.telemetry === "object") names.add("OTEL_*");
  return names;
}

/** The base of BASE_ENV_NAMES (and `LC_*`) plus the `named` variables, from `source` (the gateway's environment). */
export function sessionEnvironment(source: Record<string, string | undefined>, named: Set<string>): Record<string, string> {
  const env: Record<string, string> = {};
  const prefixes = [...BASE_ENV_PREFIXES, ...[...named].filter((n) => n.endsWith("*")).map((n) => n.slice(0, -1))];
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (BASE_ENV_NAMES.includes(name) || named.has(name) || prefixes.some((p) => name.startsWith(p))) env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  return env;
}
