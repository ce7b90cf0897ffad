// `agent gateway principal set-password` / `remove-password` run as an administrator would, against the
// database of a running gateway, with the effect checked over HTTP: without --revoke (the spec's default)
// nothing the principal holds is touched; with it, what the dashboard's password change revokes is revoked
// (auth/revocation.ts replacePassword): browser sessions, OAuth grants with the clients registered under
// them and their tokens, personal access tokens.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli } from "../../src/cli/run.ts";
import { captureIo } from "../helpers/io.ts";
import { addUser, startTestGateway, type TestGateway } from "./helpers.ts";
import { basic, call } from "./oauth-helpers.ts";
import { WebClient } from "./web-client.ts";

let gw: TestGateway;
afterEach(() => gw?.stop());

const PASSWORD = "correct horse battery";

async function admin(argv: string[], stdin?: string) {
  const io = captureIo({ stdin });
  const code = await runCli(["gateway", ...argv, "--config", join(gw.dir, "gateway-config.yaml")], io);
  return { code, out: io.stdout, err: io.stderr };
}

const configurations = (token: string) => fetch(`${gw.url}/api/v1/configurations`, { headers: { Authorization: `Bearer ${token}` } });

/** What ada holds: a signed-in browser, a PAT, and a machine client registered over HTTP with that PAT. */
async function adaWithCredentials() {
  gw = await startTestGateway();
  const ada = await addUser(gw, "ada", PASSWORD);
  const pat = (await gw.ctx.pats.create(ada, "registrar")).token;
  const res = await fetch(`${gw.url}/api/v1/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${pat}` },
    body: JSON.stringify({ client_name: "nightly ci", grant_types: ["client_credentials"], token_endpoint_auth_method: "client_secret_basic", scope: "machine" }),
  });
  expect(res.status).toBe(201);
  const { client_id, client_secret } = (await res.json()) as { client_id: string; client_secret: string };
  const clientToken = () => call(gw, "token", { grant_type: "client_credentials" }, { Authorization: basic(client_id, client_secret) });
  const issued = await clientToken();
  expect(issued.status).toBe(200);
  const web = new WebClient(gw.url);
  expect((await web.login("ada", PASSWORD)).status).toBe(303);
  expect((await web.dashboard()).status).toBe(200);
  return { pat, clientAccess: issued.body.access_token as string, clientToken, web };
}

describe("agent gateway principal set-password / remove-password against a running gateway", () => {
  test("without --revoke the password changes and every session, grant and token stays valid (spec)", async () => {
    const { pat, clientAccess, clientToken, web } = await adaWithCredentials();
    const set = await admin(["principal", "set-password", "ada", "--password-stdin"], "a brand new secret\n");
    expect(set).toEqual({ code: 0, out: "Password set for ada. Existing sessions and tokens stay valid (--revoke revokes them, as a password change on the dashboard does).\n", err: "" });
    expect((await configurations(pat)).status).toBe(200);
    expect((await configurations(clientAccess)).status).toBe(200);
    expect((await clientToken()).status).toBe(200);
    expect((await web.dashboard()).status).toBe(200);
    expect((await new WebClient(gw.url).login("ada", "a brand new secret")).status).toBe(303);
  });

  test("set-password --revoke revokes what the dashboard's password change does, and says so in its output and the audit log", async () => {
    const { pat, clientAccess, clientToken, web } = await adaWithCredentials();
    const set = await admin(["principal", "set-password", "ada", "--password-stdin", "--revoke"], "a brand new secret\n");
    expect(set).toEqual({
      code: 0,
      out: "Password set for ada. Revoked 1 browser session, 1 OAuth grant (with their tokens and the clients registered under them) and 1 personal access token.\n",
      err: "",
    });

    // The PAT, the machine client's token and the client itself (its registration grant was ada's).
    expect((await configurations(pat)).status).toBe(401);
    expect((await configurations(clientAccess)).status).toBe(401);
    const refused = await clientToken();
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: "invalid_grant",
      error_description: "the authority this client was registered with was revoked (a password change or a revoked grant); register a new client",
    });
    // The browser is signed out; the old password no longer signs in, the new one does.
    const dashboard = await web.get("/");
    expect(dashboard.status).toBe(303);
    expect(dashboard.headers.get("location")).toStartWith("/login");
    expect((await new WebClient(gw.url).login("ada", PASSWORD)).status).toBe(401);
    expect((await new WebClient(gw.url).login("ada", "a brand new secret")).headers.get("location")).toBe("/");

    const audit = JSON.parse((await admin(["audit", "list", "--json", "--limit", "20"])).out) as { action: string; target: string; detail: string }[];
    const entry = audit.find((e) => e.action === "password.set")!;
    expect(entry.detail).toMatch(/^via CLI.*; revoked web sessions 1, OAuth grants 1, personal access tokens 1$/);
    expect(JSON.stringify(audit)).not.toContain("brand new secret");
  });

  test("remove-password --revoke: the same revocations, JSON counts; again: exit 1, nothing removed", async () => {
    const { pat, clientToken, web } = await adaWithCredentials();
    const removed = await admin(["principal", "remove-password", "ada", "--revoke", "--json"]);
    expect(removed.code).toBe(0);
    const body = JSON.parse(removed.out);
    expect(body).toEqual({ id: body.id, password: false, revoked: { web_sessions: 1, oauth_grants: 1, personal_access_tokens: 1 } });
    expect((await configurations(pat)).status).toBe(401);
    expect((await clientToken()).body.error).toBe("invalid_grant");
    expect((await web.get("/")).status).toBe(303);
    expect((await new WebClient(gw.url).login("ada", PASSWORD)).status).toBe(401);

    expect(await admin(["principal", "remove-password", "ada", "--revoke"])).toEqual({ code: 1, out: "", err: "agent: ada has no password\n" });
  });
});
