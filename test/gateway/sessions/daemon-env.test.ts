// What a session's pre-run script and daemon see of the gateway's environment: the documented base (PATH,
// HOME, locale, XDG dirs, ...) and the variables the registered configuration names (`${NAME}` references,
// a stdio tool server's `pass_env`), never the rest (a marker secret, an unnamed provider key, the
// gateway's own token variables).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { namedVariables, sessionEnvironment } from "../../../src/gateway/sessions/daemon-env.ts";
import { tempDir } from "../helpers.ts";
import { api, FAKE_DAEMON_COMMAND, registerProject, sessionGateway, stopGateway } from "./helpers.ts";

const MARKERS: Record<string, string> = {
  GW_TEST_MARKER_SECRET: "marker-secret-3f9a1c",
  ANTHROPIC_API_KEY: "sk-ant-marker-unnamed-77",
  AGENT_GATEWAY_TOKEN: "pat_marker-gateway-token",
  GW_TEST_NAMED_KEY: "named-by-the-config-41",
  GW_TEST_PASSED: "passed-by-pass-env-52",
  GW_TEST_FALLBACK: "named-with-a-fallback-63",
  LC_TIME: "C.UTF-8",
};
const CONFIG = [
  "providers:",
  "  offline:",
  "    kind: { type: catalog, name: test }",
  "    url: http://127.0.0.1:1/",
  '    auth: { type: static_key, key: "${GW_TEST_NAMED_KEY}" }',
  "mcp_servers:",
  "  tools:",
  "    transport: stdio",
  "    command: /bin/true",
  "    args: ['${GW_TEST_FALLBACK:-echo none}', '$${GW_TEST_MARKER_SECRET}']",
  "    pass_env: [GW_TEST_PASSED]",
  "default_permission_matcher: bypass",
  "",
].join("\n");

let gw: Awaited<ReturnType<typeof sessionGateway>>;
let a: ReturnType<typeof api>;
let session: string;
let preRunEnv: string;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const [k, v] of Object.entries(MARKERS)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  gw = await sessionGateway();
  gw.ctx.sessions.daemonCommand = FAKE_DAEMON_COMMAND;
  a = api(gw);
  preRunEnv = join(tempDir("gw-env-"), "pre-run.env");
  session = (await a.create((await registerProject(gw, { config: CONFIG, preRun: `env > ${preRunEnv}\n` })).projectId)).body.id;
  expect((await a.settled(session)).state).toBe("running");
});
afterAll(async () => {
  await a.call("DELETE", `/api/v1/sessions/${session}`);
  await stopGateway(gw);
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

function expectMinimal(env: Record<string, string>): void {
  // Secrets of the gateway's environment that the configuration does not name: absent, by name and by value.
  for (const name of ["GW_TEST_MARKER_SECRET", "ANTHROPIC_API_KEY", "AGENT_GATEWAY_TOKEN"]) {
    expect([name, env[name]]).toEqual([name, undefined]);
    expect(JSON.stringify(env)).not.toContain(MARKERS[name]!);
  }
  // What the configuration names, and the base.
  expect(env.GW_TEST_NAMED_KEY).toBe(MARKERS.GW_TEST_NAMED_KEY!);
  expect(env.GW_TEST_PASSED).toBe(MARKERS.GW_TEST_PASSED!);
  expect(env.GW_TEST_FALLBACK).toBe(MARKERS.GW_TEST_FALLBACK!);
  expect(env.LC_TIME).toBe("C.UTF-8");
  expect([env.PATH, env.HOME]).toEqual([process.env.PATH!, process.env.HOME!]);
  expect(env.AGENT_GATEWAY_SESSION_ID).toBe(session);
}

describe("a session's processes get a minimal environment plus what the configuration names", () => {
  test("the pre-run script", () => {
    const env = parseEnv(readFileSync(preRunEnv, "utf8"));
    expectMinimal(env);
    expect(env.AGENT_PROJECT_DIR).toBeTruthy();
  });

  test("the daemon (its own environment, read through the proxy)", async () => {
    const r = await a.call("GET", `/api/v1/sessions/${session}/proxy/env`);
    expect(r.status).toBe(200);
    const env = r.body as Record<string, string>;
    expectMinimal(env);
    expect(env.AGENT_GATEWAY_BOOTSTRAP_FILE).toBeTruthy();
    // Nothing beyond the documented base, the named variables and the session's own.
    const allowed = /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|TZ|TMPDIR|TERM|XDG_[A-Z_]+|SSL_CERT_FILE|SSL_CERT_DIR|NODE_EXTRA_CA_CERTS|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy|LC_[A-Z_]+|GW_TEST_NAMED_KEY|GW_TEST_PASSED|GW_TEST_FALLBACK|AGENT_GATEWAY_SESSION_ID|AGENT_PROJECT_DIR|AGENT_GATEWAY_BOOTSTRAP_FILE)$/;
    // Bun sets a few of its own in a child it runs (not inherited from the gateway).
    const bunOwn = /^(BUN_[A-Z_]*|_)$/;
    expect(Object.keys(env).filter((k) => !allowed.test(k) && !bunOwn.test(k))).toEqual([]);
  });
});

describe("what a configuration names", () => {
  test("references in any value, pass_env lists, OTEL_* with a telemetry block; `$${X}` is a literal, not a reference", () => {
    const dir = tempDir("gw-env-");
    const file = join(dir, "config.yaml");
    writeFileSync(file, CONFIG + "telemetry: { endpoint: http://127.0.0.1:1 }\n");
    const names = namedVariables(file);
    expect([...names].sort()).toEqual(["GW_TEST_FALLBACK", "GW_TEST_NAMED_KEY", "GW_TEST_PASSED", "OTEL_*"]);
    const env = sessionEnvironment({ PATH: "/bin", OTEL_SERVICE_NAME: "x", GW_TEST_MARKER_SECRET: "s", GW_TEST_PASSED: "p" }, names);
    expect(env).toEqual({ PATH: "/bin", OTEL_SERVICE_NAME: "x", GW_TEST_PASSED: "p" });
  });

  test("an unparsable or missing configuration names nothing; PATH falls back to the system default", () => {
    expect(namedVariables("/nonexistent/config.yaml").size).toBe(0);
    expect(sessionEnvironment({ SECRET: "s" }, new Set())).toEqual({ PATH: "/usr/local/bin:/usr/bin:/bin" });
  });
});
