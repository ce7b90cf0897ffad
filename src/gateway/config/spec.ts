// The gateway config file's shape: every key of the spec's table, its type, default and bounds.
// The parser walks this tree, so unknown keys and bad values are reported from one description.
import { isValidIp, parseCidr } from "../../util/ip.ts";

export type FieldSpec =
  | { t: "str"; def?: string; check?: (v: string) => string | undefined; summary: string; /** How an error shows the value (default: as written). */ show?: (v: string) => string }
  | { t: "int"; def: number; min: number; max: number; summary: string }
  | { t: "bool"; def: boolean; summary: string }
  | { t: "strs"; check?: (v: string) => string | undefined; summary: string }
  | { t: "obj"; fields: Record<string, FieldSpec>; summary?: string }
  | { t: "map"; key?: (k: string) => string | undefined; value: FieldSpec; summary: string };

const secs = (def: number, summary: string, max = 31_536_000): FieldSpec => ({ t: "int", def, min: 1, max, summary });

const limiter = (attempts: number, windowSecs: number, lockout: number, what: string): FieldSpec => ({
  t: "obj",
  summary: what,
  fields: {
    max_attempts: { t: "int", def: attempts, min: 1, max: 1_000_000, summary: "attempts allowed within the window" },
    window_secs: secs(windowSecs, "counting window, seconds"),
    lockout_secs: secs(lockout, "lockout after the limit, seconds"),
  },
});

const noControl = (v: string) => (/[\u0000-\u001f\u007f-\u009f]/.test(v) ? "control characters are not allowed" : undefined);
const ip = (v: string) => (isValidIp(v) ? undefined : "expected an exact IPv4 or IPv6 address (CIDR notation is unsupported here)");
const cidr = (v: string) => (parseCidr(v) ? undefined : "expected a CIDR such as 10.0.0.0/8 or fd00::/8 (or a single IP)");
const url = (v: string) => {
  try {
    const u = new URL(v);
    if (u.protocol !== "https:" && u.protocol !== "http:") return "expected an http:// or https:// URL";
    if (u.username || u.password) return "credentials in the URL are not allowed";
    return undefined;
  } catch {
    return "expected an absolute URL such as https://gateway.example.com";
  }
};
/** A URL as error messages show it: its password, if any, masked. */
const maskPassword = (v: string) => {
  try {
    const u = new URL(v);
    if (!u.password) return v;
    u.password = "***";
    return u.toString();
  } catch {
    return v;
  }
};
const pgUrl = (v: string) => {
  try {
    const u = new URL(v);
    if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") return "expected a postgres:// URL";
    if (u.password) return "a password in the URL is not allowed: name it with database.password_env or database.password_file";
    return undefined;
  } catch {
    return "expected a URL such as postgres://agent@db.internal:5432/agent_gateway";
  }
};
const envName = (v: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(v) ? undefined : "expected an environment variable name");
/** Why `v` is not a host name (gateway host_name, a host credential's host), or undefined. */
export const hostName = (v: string) => (/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(v) ? undefined : "expected a host name: letters, digits, '.', '-', '_' (at most 63)");
const slug = (k: string) => (/^[a-z0-9][a-z0-9_-]*$/.test(k) ? undefined : "names use lowercase letters, digits, '-' and '_'");

export const GATEWAY_CONFIG_SPEC: FieldSpec = {
  t: "obj",
  fields: {
    display_name: { t: "str", check: noControl, summary: "instance name returned by the health route" },
    listen: {
      t: "obj",
      fields: {
        address: { t: "str", check: ip, summary: "IP to bind" },
        port: { t: "int", def: 19870, min: 0, max: 65535, summary: "TCP port" },
      },
    },
    tls: {
      t: "obj",
      fields: {
        cert_file: { t: "str", summary: "PEM certificate file" },
        key_file: { t: "str", summary: "PEM private key file" },
      },
    },
    data_dir: { t: "str", summary: "data directory override" },
    host_name: { t: "str", check: hostName, summary: "this host's name among replicas (default: the machine's hostname)" },
    database: {
      t: "obj",
      summary: "where the gateway keeps its state: SQLite in the data dir unless `url` names a PostgreSQL server",
      fields: {
        url: { t: "str", check: pgUrl, show: maskPassword, summary: "postgres://user@host:port/database (no password: see password_env/password_file)" },
        password_env: { t: "str", check: envName, summary: "environment variable holding the database password" },
        password_file: { t: "str", summary: "file holding the database password (first line)" },
        pool_size: { t: "int", def: 10, min: 1, max: 200, summary: "connections per gateway process" },
      },
    },
    auth: {
      t: "obj",
      fields: {
        password: {
          t: "obj",
          fields: {
            pepper_file: { t: "str", summary: "pepper file for password hashing" },
            memory_kib: { t: "int", def: 19456, min: 8192, max: 4_194_304, summary: "Argon2id memory cost, KiB" },
            time_cost: { t: "int", def: 2, min: 1, max: 100, summary: "Argon2id iterations" },
            parallelism: { t: "int", def: 1, min: 1, max: 1, summary: "Argon2id lanes (Bun's Argon2id supports exactly 1)" },
            max_password_bytes: { t: "int", def: 1024, min: 8, max: 65536, summary: "longest accepted password, bytes" },
            max_concurrent_hashes: { t: "int", def: 4, min: 1, max: 256, summary: "concurrent hash operations" },
          },
        },
        pam: { t: "obj", fields: { service: { t: "str", def: "agent-gateway", check: (v) => (/^[A-Za-z0-9._-]+$/.test(v) ? undefined : "expected a PAM service file name"), summary: "PAM service name" } } },
        session: { t: "obj", fields: { idle_secs: secs(1800, "web session idle timeout"), absolute_secs: secs(28800, "web session absolute lifetime") } },
        oauth: {
          t: "obj",
          fields: {
            access_token_ttl_secs: secs(900, "access token lifetime"),
            refresh_token_absolute_secs: secs(2_592_000, "refresh token absolute lifetime"),
            refresh_token_idle_secs: secs(1_209_600, "refresh token idle timeout"),
            device_code_ttl_secs: secs(900, "device code lifetime"),
            device_poll_interval_secs: secs(5, "device polling interval", 3600),
          },
        },
        rate_limit: limiter(5, 60, 300, "failed-login limiter"),
        device_rate_limit: limiter(10, 300, 60, "device approval limiter"),
        oauth_rate_limit: limiter(20, 300, 600, "client registration and device-authorization limiter"),
        oauth_token_rate_limit: limiter(100, 60, 60, "token endpoint limiter"),
        external_url: { t: "str", check: url, show: maskPassword, summary: "externally reachable URL" },
        trusted_proxies: { t: "strs", check: cidr, summary: "CIDRs whose X-Forwarded-For is honoured" },
      },
    },
    network: {
      t: "obj",
      fields: {
        allow_ips: { t: "strs", check: ip, summary: "exact IPs allowed" },
        deny_ips: { t: "strs", check: ip, summary: "exact IPs denied" },
      },
    },
    daemon_sessions: {
      t: "obj",
      fields: {
        stop_timeout_secs: secs(30, "graceful-stop wait before SIGKILL", 3600),
        health_check_timeout_secs: secs(30, "post-spawn health poll timeout", 3600),
        spawn_discover_timeout_secs: secs(30, "port discovery timeout", 3600),
        proxy_connect_timeout_secs: secs(30, "proxy connect timeout", 3600),
        auth_dir: { t: "str", summary: "auth profile dir passed to daemons" },
      },
    },
    services: {
      t: "map",
      key: slug,
      summary: "services and their capabilities",
      value: {
        t: "obj",
        fields: {
          enabled: { t: "bool", def: false, summary: "enables the service" },
          capabilities: {
            t: "map",
            key: slug,
            summary: "capability switches",
            value: { t: "obj", fields: { enabled: { t: "bool", def: false, summary: "capability switch" }, modes: { t: "strs", summary: "mode strings" } } },
          },
        },
      },
    },
  },
};
