// Scope checks on the registry routes: `machine` is required on every management route, so a token that
// holds only `project` (an OAuth client_credentials token) or only `current_session` (a daemon credential)
// gets 403 and changes nothing; no token gets the identical 401. Also the issue 9 leftover: a
// `project`-only token cannot register a confidential OAuth client.
import { sqlAll, sqlGet } from "../helpers.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serviceCredentialVerifier } from "../../../src/gateway/auth/bearer.ts";
import { basic, call, confidentialClient } from "../oauth-helpers.ts";
import { startRegistryGateway, YAML_CONFIG, type RegistryGateway } from "./helpers.ts";

let r: RegistryGateway;
let projectToken: string;
let daemonToken: string;
let projectId: string;

beforeAll(async () => {
  r = await startRegistryGateway();
  const [id, secret] = await confidentialClient(r.gw, ["project"]);
  const issued = await call(r.gw, "token", { grant_type: "client_credentials" }, { Authorization: basic(id, secret) });
  expect(issued.body.scope).toBe("project");
  projectToken = issued.body.access_token;
  expect((await r.call("POST", "/api/v1/configurations", { name: "cfg", config_content: YAML_CONFIG, config_format: "yaml" })).status).toBe(201);
  projectId = (await r.call("POST", "/api/v1/projects", { path: r.projectDir(), config_name: "cfg" })).body.id;
  const now = r.gw.clock.now();
  await sqlAll(r.gw.ctx.db, "INSERT INTO sessions (id, project_id, launch_mode, state, current_generation_id, created_at, updated_at) VALUES ('ses_acc', ?, 'project_direct', 'running', 'genacc', ?, ?)", [projectId, now, now]);
  daemonToken = `dsc_genacc.${"s".repeat(24)}`;
  await sqlAll(r.gw.ctx.db, "INSERT INTO service_credentials (generation_id, session_id, state, verifier, created_at) VALUES ('genacc', 'ses_acc', 'active', ?, ?)", [serviceCredentialVerifier(r.gw.ctx.pepper, daemonToken), now]);
});
afterAll(() => r.gw.stop());

const routes = (): Array<[string, string, unknown?]> => [
  ["GET", "/api/v1/configurations"],
  ["POST", "/api/v1/configurations", { name: "sneaky", config_content: YAML_CONFIG, config_format: "yaml" }],
  ["GET", "/api/v1/configurations/cfg"],
  ["PUT", "/api/v1/configurations/cfg", { config_content: "default_permission_matcher: bypass\n" }],
  ["DELETE", "/api/v1/configurations/cfg"],
  ["GET", "/api/v1/projects"],
  ["POST", "/api/v1/projects", { path: r.projectDir(), config_name: "cfg" }],
  ["GET", `/api/v1/projects/${projectId}`],
  ["PUT", `/api/v1/projects/${projectId}`, { config_name: "cfg" }],
  ["DELETE", `/api/v1/projects/${projectId}`],
];

describe("management routes need the machine scope", () => {
  test("a project-only token and a daemon credential get 403 insufficient_scope on every route; nothing changes", async () => {
    for (const token of [projectToken, daemonToken]) {
      for (const [method, path, body] of routes()) {
        const res = await r.call(method, path, body, token);
        expect([method, path, res.status, res.body.error]).toEqual([method, path, 403, "insufficient_scope"]);
      }
    }
    expect((await r.call("GET", "/api/v1/configurations/cfg")).body.config_content).toBe(YAML_CONFIG);
    expect((await r.call("GET", "/api/v1/configurations")).body.map((c: { name: string }) => c.name)).toEqual(["cfg"]);
    expect((await r.call("GET", "/api/v1/projects")).body.map((p: { id: string }) => p.id)).toEqual([projectId]);
  });

  test("no token or a forged one gets the identical 401 body", async () => {
    for (const [method, path, body] of routes()) {
      const res = await fetch(`${r.gw.url}${path}`, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      expect([path, res.status, await res.text()]).toEqual([path, 401, '{"error":"unauthorized"}']);
      expect((await r.call(method, path, body, "pat_forged")).status).toBe(401);
    }
  });
});

test("a project-only token cannot register a confidential OAuth client (403, nothing stored)", async () => {
  const before = (await sqlGet(r.gw.ctx.db, "SELECT count(*) AS n FROM oauth_clients"));
  const res = await fetch(`${r.gw.url}/api/v1/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${projectToken}` },
    body: JSON.stringify({ client_name: "escalate", grant_types: ["client_credentials"], scope: "machine" }),
  });
  expect(res.status).toBe(403);
  expect((await res.json()).error).toBe("insufficient_scope");
  expect((await sqlGet(r.gw.ctx.db, "SELECT count(*) AS n FROM oauth_clients"))).toEqual(before);
});
