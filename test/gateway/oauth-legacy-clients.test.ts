// Confidential clients registered over HTTP by a gateway older than registration grants (decision 47 of
// docs/decisions-gateway.md). A gateway of today registers them, then its database is put back the way an
// older gateway left it (no registration grants, no registered_via column, migration 0003 not applied);
// the next start migrates it. Each client is then met as a CI job meets it: client_credentials and an API call.
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as oauth from "oauth4webapi";
import { cliActor } from "../../src/gateway/admin/admin-context.ts";
import { OAuthClientStore } from "../../src/gateway/auth/oauth-clients.ts";
import { ClientAuthenticator } from "../../src/gateway/oauth/client-auth.ts";
import { addUser, sqlAll, sqlGet, sqliteOnlyTest, startTestGateway, tempDir, type TestGateway } from "./helpers.ts";
import { WebClient } from "./web-client.ts";

let gw: TestGateway | null = null;
afterEach(async () => {
  await gw?.stop();
  gw = null;
});

const http = { [oauth.allowInsecureRequests]: true } as const;
const PASSWORD = "correct horse battery";
type Machine = { client: oauth.Client; auth: oauth.ClientAuth };

const discover = async (g: TestGateway) => {
  const issuer = new URL(g.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...http }));
};

async function registerOverHttp(as: oauth.AuthorizationServer, initialAccessToken: string, name: string): Promise<Machine> {
  const r = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, { client_name: name, grant_types: ["client_credentials"], token_endpoint_auth_method: "client_secret_basic", scope: "machine" }, { ...http, initialAccessToken }),
  );
  return { client: { client_id: r.client_id }, auth: oauth.ClientSecretBasic(r.client_secret as string) };
}

const clientCredentials = async (as: oauth.AuthorizationServer, m: Machine) =>
  oauth.processClientCredentialsResponse(as, m.client, await oauth.clientCredentialsGrantRequest(as, m.client, m.auth, {}, http));

async function refusal(p: Promise<unknown>): Promise<{ error: string; description?: string }> {
  const e = await p.then(
    () => null,
    (error) => error,
  );
  if (!(e instanceof oauth.ResponseBodyError)) throw new Error(`expected an OAuth error response, got ${e}`);
  return { error: e.error, description: e.error_description };
}

const listConfigurations = (g: TestGateway, token: string) => fetch(`${g.url}/api/v1/configurations`, { headers: { Authorization: `Bearer ${token}` } });

async function changePassword(g: TestGateway, username: string, current: string, next: string): Promise<void> {
  const web = new WebClient(g.url);
  await web.login(username, current);
  const page = await web.dashboard();
  expect((await web.post("/password", { csrf: page.csrf, current, new: next, confirm: next })).status).toBe(303);
  expect((await web.dashboard()).html).toContain("Password changed.");
}

const MIGRATIONS = join(import.meta.dir, "..", "..", "src", "gateway", "db", "migrations");

/**
 * What a gateway before migration 0003 left: confidential clients without registration grants, tokens
 * without a grant, no registered_via, and none of the later migrations' tables, columns and indexes (read
 * from their files, so a new migration is undone too). The next start applies 0003 and every later one.
 */
function makeLegacy(dataDir: string): void {
  const journal = (JSON.parse(readFileSync(join(MIGRATIONS, "meta", "_journal.json"), "utf8")) as { entries: { tag: string; when: number }[] }).entries;
  const at = journal.findIndex((e) => e.tag.startsWith("0003_"));
  const db = new Database(join(dataDir, "gateway.sqlite"));
  db.exec("PRAGMA foreign_keys = OFF");
  for (const { tag } of journal.slice(at + 1).reverse()) {
    const text = readFileSync(join(MIGRATIONS, `${tag}.sql`), "utf8");
    for (const [, index] of text.matchAll(/CREATE (?:UNIQUE )?INDEX `(\w+)`/g)) db.exec(`DROP INDEX IF EXISTS "${index}"`);
    for (const [, table, column] of text.matchAll(/ALTER TABLE `(\w+)` ADD `(\w+)`/g)) db.exec(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
    for (const [, table] of text.matchAll(/CREATE TABLE `(\w+)`/g)) db.exec(`DROP TABLE "${table}"`);
  }
  db.exec("UPDATE oauth_access_tokens SET grant_id = NULL, revoked_at = NULL WHERE client_id IN (SELECT id FROM oauth_clients WHERE client_type = 'confidential')");
  db.exec("DELETE FROM oauth_grants WHERE client_id IN (SELECT id FROM oauth_clients WHERE client_type = 'confidential')");
  db.exec("ALTER TABLE oauth_clients DROP COLUMN registered_via");
  db.query("DELETE FROM __drizzle_migrations WHERE created_at >= ?").run(journal[at]!.when);
  db.close();
}

describe("confidential clients registered before registration grants (migration 0003)", () => {
  // PostgreSQL databases start at the current schema: there is no older one to migrate.
  sqliteOnlyTest("attributed to the account whose token registered them, a password change stops them; admin CLI clients keep working; unknown ones are refused (SQLite only: an older gateway's SQLite file)", async () => {
    const dataDir = join(tempDir(), "data");
    let g = await startTestGateway("", { dataDir });
    gw = g;
    const ada = await addUser(g, "ada", PASSWORD);
    const bob = await addUser(g, "bob", PASSWORD);
    let as = await discover(g);
    const adas = await registerOverHttp(as, (await g.ctx.pats.create(ada, "registrar")).token, "ada's ci");
    const helper = await registerOverHttp(as, (await clientCredentials(as, adas)).access_token, "ci helper");
    const bobs = await registerOverHttp(as, (await g.ctx.pats.create(bob, "registrar")).token, "bob's ci");
    const unknown = await registerOverHttp(as, (await g.ctx.pats.create(bob, "other")).token, "nobody's ci");
    const unknownsOwn = await registerOverHttp(as, (await clientCredentials(as, unknown)).access_token, "registered by nobody's ci");
    const admin = await new OAuthClientStore(g.ctx.db, g.clock).register("ops", "confidential");
    await g.ctx.audit.record({ action: "client.register", outcome: "success", target: admin.client.id, detail: cliActor() });
    const adminClient: Machine = { client: { client_id: admin.client.id }, auth: oauth.ClientSecretBasic(admin.secret!) };
    const tokens = {
      adas: (await clientCredentials(as, adas)).access_token,
      helper: (await clientCredentials(as, helper)).access_token,
      bobs: (await clientCredentials(as, bobs)).access_token,
      unknown: (await clientCredentials(as, unknown)).access_token,
      unknownsOwn: (await clientCredentials(as, unknownsOwn)).access_token,
      admin: (await clientCredentials(as, adminClient)).access_token,
    };
    // Bob changed his password while the old gateway ran: it revoked nothing of his client's (put back below).
    await changePassword(g, "bob", PASSWORD, "bob's new password 1");
    // Whoever registered this one is not on record (its audit event is gone).
    await sqlAll(g.ctx.db, "DELETE FROM audit_events WHERE action = 'client.register' AND target = ?", [unknown.client.client_id]);
    await g.stop();
    gw = null;
    makeLegacy(dataDir);

    g = await startTestGateway("", { dataDir });
    gw = g;
    as = await discover(g);
    // Ada's clients now hold her grant: they work, and she sees the registration on her dashboard.
    expect((await listConfigurations(g, tokens.adas)).status).toBe(200);
    expect((await listConfigurations(g, (await clientCredentials(as, helper)).access_token)).status).toBe(200);
    const web = new WebClient(g.url);
    await web.login("ada", PASSWORD);
    expect((await web.dashboard()).html).toContain("ada&#39;s ci");
    // Bob's password changed after his client was registered: the client is refused and its token is dead.
    expect(await refusal(clientCredentials(as, bobs))).toEqual({
      error: "invalid_grant",
      description: "the authority this client was registered with was revoked (a password change or a revoked grant); register a new client",
    });
    expect((await listConfigurations(g, tokens.bobs)).status).toBe(401);
    // Not attributable: refused, with what it registered in turn.
    expect(await refusal(clientCredentials(as, unknown))).toEqual({
      error: "invalid_grant",
      description: "this client was registered by an older gateway and the account that registered it is not known, so a password change could not revoke it; register a new client",
    });
    expect((await listConfigurations(g, tokens.unknown)).status).toBe(401);
    expect((await refusal(clientCredentials(as, unknownsOwn))).error).toBe("invalid_grant");
    expect((await listConfigurations(g, tokens.unknownsOwn)).status).toBe(401);
    // The admin CLI's client answers to the database's holder, as before.
    expect((await listConfigurations(g, tokens.admin)).status).toBe(200);
    expect((await listConfigurations(g, (await clientCredentials(as, adminClient)).access_token)).status).toBe(200);

    // Ada changes her password: her client and the one it registered stop, tokens and new ones alike.
    await changePassword(g, "ada", PASSWORD, "ada's new password 1");
    expect((await listConfigurations(g, tokens.adas)).status).toBe(401);
    expect((await listConfigurations(g, tokens.helper)).status).toBe(401);
    expect((await refusal(clientCredentials(as, adas))).error).toBe("invalid_grant");
    expect((await refusal(clientCredentials(as, helper))).error).toBe("invalid_grant");
    expect((await listConfigurations(g, (await clientCredentials(as, adminClient)).access_token)).status).toBe(200);
  });

  test("clients registered from now on say how: a confidential client over HTTP always with its registrant", async () => {
    const g = await startTestGateway();
    gw = g;
    const store = new OAuthClientStore(g.ctx.db, g.clock);
    await expect(store.register("x", "confidential", undefined, ["machine"], "client_secret_basic", { via: "http" })).rejects.toThrow(/needs the principal whose token registered it/);
    const { client, secret } = await store.register("ops", "confidential");
    const viaCli = client.id;
    expect((await sqlGet(g.ctx.db, "SELECT registered_via FROM oauth_clients WHERE id = ?", [viaCli]))).toEqual({ registered_via: "admin_cli" });
    // The registration grant as the token endpoint reads it, with the client's authentication.
    const registration = async () => {
      const request = new Request("http://gateway/", { headers: { Authorization: `Basic ${btoa(`${viaCli}:${secret}`)}` } });
      return (await new ClientAuthenticator(g.ctx.db).authenticate(request, new Map())).registration;
    };
    expect(await registration()).toEqual({ state: "none" });
    // A row without registered_via and without a grant (what the migration could not attribute) is unattributed.
    await sqlAll(g.ctx.db, "UPDATE oauth_clients SET registered_via = NULL WHERE id = ?", [viaCli]);
    expect(await registration()).toEqual({ state: "unattributed" });
  });
});
