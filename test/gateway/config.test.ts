import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GatewayConfigError, defaultConfigPath, loadGatewayConfig, parseGatewayConfig, resolveDataDir } from "../../src/gateway/config/load.ts";
import { tempDir } from "./helpers.ts";

const parse = (yaml: string) => parseGatewayConfig(yaml, "/etc/gw/gateway-config.yaml", "buildhost");
const fails = (yaml: string) => {
  try {
    parse(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the config to be rejected");
};

describe("gateway config file", () => {
  test("auth: {} is the smallest valid file and every key gets the spec's default", () => {
    const c = parse("auth: {}\n");
    expect(c.display_name).toBe("buildhost");
    expect(c.listen).toEqual({ address: "127.0.0.1", port: 19870, derived: true });
    expect(c.tls).toEqual({ cert_file: undefined, key_file: undefined });
    expect(c.auth.password).toEqual({ pepper_file: undefined, memory_kib: 19456, time_cost: 2, parallelism: 1, max_password_bytes: 1024, max_concurrent_hashes: 4 });
    expect(c.auth.pam.service).toBe("agent-gateway");
    expect(c.auth.session).toEqual({ idle_secs: 1800, absolute_secs: 28800 });
    expect(c.auth.oauth).toEqual({ access_token_ttl_secs: 900, refresh_token_absolute_secs: 2592000, refresh_token_idle_secs: 1209600, device_code_ttl_secs: 900, device_poll_interval_secs: 5 });
    expect(c.auth.rate_limit).toEqual({ max_attempts: 5, window_secs: 60, lockout_secs: 300 });
    expect(c.auth.device_rate_limit).toEqual({ max_attempts: 10, window_secs: 300, lockout_secs: 60 });
    expect(c.auth.oauth_rate_limit).toEqual({ max_attempts: 20, window_secs: 300, lockout_secs: 600 });
    expect(c.auth.oauth_token_rate_limit).toEqual({ max_attempts: 100, window_secs: 60, lockout_secs: 60 });
    expect(c.auth.external_url).toBeUndefined();
    expect(c.auth.trusted_proxies).toEqual([]);
    expect(c.network).toEqual({ allow_ips: [], deny_ips: [] });
    expect(c.daemon_sessions).toEqual({ stop_timeout_secs: 30, health_check_timeout_secs: 30, spawn_discover_timeout_secs: 30, proxy_connect_timeout_secs: 30, auth_dir: undefined });
    expect(c.services).toEqual({});
  });

  test("every key is read from the file; relative paths resolve beside it", () => {
    const c = parse(`display_name: Build box
listen: {address: "::1", port: 8443}
tls: {cert_file: certs/gw.pem, key_file: /keys/gw.key}
data_dir: data
auth:
  password: {pepper_file: pepper.txt, memory_kib: 65536, time_cost: 3, parallelism: 1, max_password_bytes: 256, max_concurrent_hashes: 2}
  pam: {service: login}
  session: {idle_secs: 600, absolute_secs: 3600}
  oauth: {access_token_ttl_secs: 60, refresh_token_absolute_secs: 600, refresh_token_idle_secs: 300, device_code_ttl_secs: 120, device_poll_interval_secs: 2}
  rate_limit: {max_attempts: 3, window_secs: 30, lockout_secs: 90}
  device_rate_limit: {max_attempts: 4, window_secs: 40, lockout_secs: 50}
  oauth_rate_limit: {max_attempts: 6, window_secs: 70, lockout_secs: 80}
  oauth_token_rate_limit: {max_attempts: 7, window_secs: 90, lockout_secs: 100}
  external_url: https://gw.example.com
  trusted_proxies: [10.0.0.0/8, "fd00::/8"]
network: {allow_ips: [192.0.2.1], deny_ips: ["2001:db8::1"]}
daemon_sessions: {stop_timeout_secs: 5, health_check_timeout_secs: 6, spawn_discover_timeout_secs: 7, proxy_connect_timeout_secs: 8, auth_dir: /var/auth}
services:
  review:
    enabled: true
    capabilities:
      comment: {enabled: true, modes: [inline, summary]}
`);
    expect(c.display_name).toBe("Build box");
    expect(c.listen).toEqual({ address: "::1", port: 8443, derived: false });
    expect(c.tls).toEqual({ cert_file: "/etc/gw/certs/gw.pem", key_file: "/keys/gw.key" });
    expect(c.data_dir).toBe("/etc/gw/data");
    expect(c.auth.password.pepper_file).toBe("/etc/gw/pepper.txt");
    expect(c.auth.password.memory_kib).toBe(65536);
    expect(c.auth.pam.service).toBe("login");
    expect(c.auth.session.idle_secs).toBe(600);
    expect(c.auth.oauth.device_poll_interval_secs).toBe(2);
    expect(c.auth.oauth_token_rate_limit).toEqual({ max_attempts: 7, window_secs: 90, lockout_secs: 100 });
    expect(c.auth.trusted_proxies).toEqual(["10.0.0.0/8", "fd00::/8"]);
    expect(c.network.deny_ips).toEqual(["2001:db8::1"]);
    expect(c.daemon_sessions.auth_dir).toBe("/var/auth");
    expect(c.services.review).toEqual({ enabled: true, capabilities: { comment: { enabled: true, modes: ["inline", "summary"] } } });
  });

  test("unknown fields are rejected with file:line and the allowed keys", () => {
    expect(fails("auth:\n  password: {}\n  sesion: {}\n")).toBe("/etc/gw/gateway-config.yaml:3: unknown field 'auth.sesion'; allowed here: password, pam, session, oauth, rate_limit, device_rate_limit, oauth_rate_limit, oauth_token_rate_limit, external_url, trusted_proxies");
    expect(fails("auth: {}\nlisten:\n  host: 0.0.0.0\n")).toContain(":3: unknown field 'listen.host'");
    expect(fails("auth: {}\nextra: 1\n")).toContain(":2: unknown field 'extra'");
    expect(fails("auth: {}\n__proto__: 1\n")).toContain("unknown field '__proto__'");
  });

  test("bad values name the line, the key, the value and what is allowed", () => {
    expect(fails("auth:\n  rate_limit:\n    max_attempts: 0\n")).toBe("/etc/gw/gateway-config.yaml:3: auth.rate_limit.max_attempts: 0 is out of range; allowed 1..1000000 (attempts allowed within the window)");
    expect(fails("auth: {}\nlisten: {port: http}\n")).toContain(":2: listen.port: expected an integer, found string \"http\"");
    expect(fails("auth: {}\nnetwork: {deny_ips: [10.0.0.0/8]}\n")).toContain("network.deny_ips[0]: \"10.0.0.0/8\": expected an exact IPv4 or IPv6 address");
    expect(fails("auth: {trusted_proxies: [not-a-cidr]}\n")).toContain("auth.trusted_proxies[0]");
    expect(fails("auth: {external_url: ftp://x}\n")).toContain("auth.external_url: \"ftp://x\": expected an http:// or https:// URL");
    expect(fails("auth: {password: {parallelism: 4}}\n")).toContain("auth.password.parallelism: 4 is out of range; allowed 1..1");
    expect(fails("auth: {session: {idle_secs: 100, absolute_secs: 50}}\n")).toContain("absolute_secs (50) must not be shorter than auth.session.idle_secs (100)");
  });

  test("the auth section is required and an empty file says what to write", () => {
    expect(fails("listen: {port: 1}\n")).toContain("missing the 'auth' section (write 'auth: {}'");
    expect(fails("")).toContain("the smallest valid config is 'auth: {}'");
    expect(fails("auth: {}\nauth: {}\n")).toContain("invalid YAML");
  });

  test("display_name rejects control characters and falls back to the hostname", () => {
    expect(fails('display_name: "bad\\u0007name"\nauth: {}\n')).toContain("display_name: \"bad\\u0007name\": control characters are not allowed");
    expect(parse('display_name: ""\nauth: {}\n').display_name).toBe("buildhost");
    expect(parse("display_name: '   '\nauth: {}\n").display_name).toBe("buildhost");
  });

  test("listen address: 0.0.0.0 with external_url, 127.0.0.1 without, explicit wins", () => {
    expect(parse("auth: {external_url: https://gw.example.com}\n").listen.address).toBe("0.0.0.0");
    expect(parse("auth: {}\n").listen.address).toBe("127.0.0.1");
    expect(parse("listen: {address: 127.0.0.1}\nauth: {external_url: https://gw.example.com}\n").listen.address).toBe("127.0.0.1");
    expect(fails("listen: {address: localhost}\nauth: {}\n")).toContain("listen.address: \"localhost\": expected an exact IPv4 or IPv6 address");
  });

  test("tls files must be set together", () => {
    expect(fails("tls: {cert_file: a.pem}\nauth: {}\n")).toBe("/etc/gw/gateway-config.yaml: tls.cert_file and tls.key_file must be set together; tls.key_file is missing");
    expect(fails("tls: {key_file: a.key}\nauth: {}\n")).toContain("tls.cert_file is missing");
  });

  test("a missing file is a clear error saying how to create one", () => {
    const dir = tempDir();
    const path = join(dir, "agent-gateway", "gateway-config.yaml");
    expect(() => loadGatewayConfig(path)).toThrow(`gateway config not found: ${path}\nCreate it with at least an empty auth section`);
    writeFileSync(join(dir, "c.yaml"), "auth: {}\n");
    expect(loadGatewayConfig(join(dir, "c.yaml")).listen.port).toBe(19870);
  });

  test("default locations follow XDG, else the home directory", () => {
    expect(defaultConfigPath({ XDG_CONFIG_HOME: "/x/cfg", HOME: "/home/u" })).toBe("/x/cfg/agent-gateway/gateway-config.yaml");
    expect(defaultConfigPath({ HOME: "/home/u" })).toBe("/home/u/.config/agent-gateway/gateway-config.yaml");
    const c = parse("auth: {}\n");
    expect(resolveDataDir(c, { XDG_DATA_HOME: "/x/data" })).toBe("/x/data/agent-gateway");
    expect(resolveDataDir(c, { HOME: "/home/u" })).toBe("/home/u/.local/share/agent-gateway");
    expect(resolveDataDir(parse("data_dir: /srv/gw\nauth: {}\n"), { XDG_DATA_HOME: "/x" })).toBe("/srv/gw");
  });
});
