import { describe, expect, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../../src/cli/run.ts";
import { createGatewayContext } from "../../src/gateway/context.ts";
import { parseGatewayConfig } from "../../src/gateway/config/load.ts";
import { captureIo } from "../helpers/io.ts";
import { sqlAll, sqlGet, storageYaml, tempDir } from "./helpers.ts";

async function setup() {
  const dir = tempDir("gw-cli-");
  const config = join(dir, "gateway-config.yaml");
  // data_dir, and under AGENT_TEST_DB=pg the database.url: contexts opened below reach the same data.
  const storage = await storageYaml(join(dir, "data"));
  writeFileSync(config, `${storage}auth:\n  password: {memory_kib: 8192, time_cost: 1}\n`);
  const run = async (argv: string[], stdin?: string) => {
    const io = captureIo({ stdin });
    const code = await runCli(["gateway", ...argv, "--config", config], io);
    return { code, out: io.stdout, err: io.stderr };
  };
  return { dir, config, storage, run };
}

describe("agent gateway principal/token/audit (db commands)", () => {
  test("principal create, list, show, rename, delete", async () => {
    const { run } = await setup();
    const created = await run(["principal", "create", "ada", "--display-name", "Ada L."]);
    expect(created.code).toBe(0);
    expect(created.out).toContain("Created principal ada (prn_");
    const dup = await run(["principal", "create", "ada"]);
    expect(dup.code).toBe(1);
    expect(dup.err).toBe('agent: a principal named "ada" already exists\n');
    const bad = await run(["principal", "create", "Ada Lovelace"]);
    expect(bad.err).toContain('invalid username "Ada Lovelace"');
    const list = JSON.parse((await run(["principal", "list", "--json"])).out);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ username: "ada", display_name: "Ada L.", password: false, pam: null });
    const table = (await run(["principal", "list"])).out;
    expect(table).toMatch(/^ID\s+USERNAME\s+DISPLAY NAME\s+PASSWORD\s+PAM\nprn_\S+\s+ada\s+Ada L\.\s+no\s+no\n$/);
    expect(JSON.parse((await run(["principal", "rename", "ada", "--display-name", "Countess", "--json"])).out).display_name).toBe("Countess");
    expect(JSON.parse((await run(["principal", "show", list[0].id, "--json"])).out).display_name).toBe("Countess");
    expect((await run(["principal", "show", "nobody"])).err).toBe('agent: no principal with id or username "nobody"\n');
    expect((await run(["principal", "delete", "ada"])).out).toContain("Deleted principal ada");
    expect((await run(["principal", "list"])).out).toContain("No principals.");
  });

  test("set-password reads stdin only with --password-stdin, enforces the rules, and the hash is peppered Argon2id", async () => {
    const { run, dir, storage } = await setup();
    await run(["principal", "create", "ada"]);
    const noTty = await run(["principal", "set-password", "ada"], "secretpass\n");
    expect(noTty.code).toBe(1);
    expect(noTty.err).toContain("in scripts pipe the password with --password-stdin");
    const short = await run(["principal", "set-password", "ada", "--password-stdin"], "short\n");
    expect(short.err).toBe("agent: passwords need at least 8 characters\n");
    const long = await run(["principal", "set-password", "ada", "--password-stdin"], `${"x".repeat(1025)}\n`);
    expect(long.err).toBe("agent: passwords are limited to 1024 bytes\n");
    const ok = await run(["principal", "set-password", "ada", "--password-stdin"], "correct horse battery\nignored\n");
    expect(ok.code).toBe(0);
    expect(ok.out + ok.err).not.toContain("correct horse");
    expect(statSync(join(dir, "data", "pepper")).mode & 0o777).toBe(0o600);
    const ctx = await createGatewayContext({ config: parseGatewayConfig(`${storage}auth:\n  password: {memory_kib: 8192, time_cost: 1}\n`, join(dir, "c.yaml")), env: {} });
    const p = await ctx.principals.get("ada");
    const hash = (await ctx.principals.passwordHash(p.id))!;
    expect(hash).toStartWith("$argon2id$");
    expect(await ctx.hasher.verify("correct horse battery", hash)).toBe(true);
    expect(await ctx.hasher.verify("ignored", hash)).toBe(false);
    // Peppered: the raw password does not verify against the stored hash.
    expect(await Bun.password.verify("correct horse battery", hash)).toBe(false);
    await ctx.db.close();
    expect(JSON.parse((await run(["principal", "show", "ada", "--json"])).out).password).toBe(true);
    expect((await run(["principal", "remove-password", "ada"])).out).toBe("Password removed from ada. Existing sessions and tokens stay valid (--revoke revokes them, as a password change on the dashboard does).\n");
    expect((await run(["principal", "remove-password", "ada"])).err).toBe("agent: ada has no password\n");
  });

  test("set-pam and remove-pam", async () => {
    const { run } = await setup();
    await run(["principal", "create", "ops"]);
    expect((await run(["principal", "set-pam", "ops"])).err).toContain("needs --system-user");
    const set = await run(["principal", "set-pam", "ops", "--system-user", "deploy", "--json"]);
    expect(JSON.parse(set.out).pam).toEqual({ service: "agent-gateway", system_user: "deploy" });
    const other = await run(["principal", "set-pam", "ops", "--system-user", "deploy", "--service", "login", "--json"]);
    expect(JSON.parse(other.out).pam).toEqual({ service: "login", system_user: "deploy" });
    expect((await run(["principal", "remove-pam", "ops"])).code).toBe(0);
    expect(JSON.parse((await run(["principal", "show", "ops", "--json"])).out).pam).toBeNull();
  });

  test("token create prints the token once on stdout; list shows no secrets; revoke", async () => {
    const { run } = await setup();
    await run(["principal", "create", "ci"]);
    expect((await run(["token", "create", "ci"])).err).toContain("needs --label");
    const created = await run(["token", "create", "ci", "--label", "build bot"]);
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/^pat_[A-Za-z0-9_-]{43}\n$/);
    const token = created.out.trim();
    expect(created.err).toMatch(/^Created token tok_\S+ \("build bot"\) for ci\. It is shown only this once\.\n$/);
    const list = await run(["token", "list", "ci"]);
    expect(list.out).toContain("build bot");
    expect(list.out).not.toContain(token);
    const json = JSON.parse((await run(["token", "list", "ci", "--json"])).out);
    expect(json).toHaveLength(1);
    expect(JSON.stringify(json)).not.toContain(token);
    const revoked = await run(["token", "revoke", json[0].id]);
    expect(revoked.out).toBe(`Revoked token ${json[0].id} ("build bot").\n`);
    expect((await run(["token", "revoke", json[0].id])).err).toContain("already revoked");
    expect((await run(["token", "list", "ci"])).out).toBe("ci has no live tokens.\n");
  });

  test("audit list records admin actions without secrets and filters by principal, time and count", async () => {
    const { run } = await setup();
    await run(["principal", "create", "a1"]);
    await run(["principal", "create", "b2"]);
    const token = (await run(["token", "create", "a1", "--label", "x"])).out.trim();
    await run(["principal", "set-password", "a1", "--password-stdin"], "another secret pw\n");
    const all = JSON.parse((await run(["audit", "list", "--json"])).out);
    expect(all.map((e: { action: string }) => e.action)).toEqual(["password.set", "token.create", "principal.create", "principal.create"]);
    const text = JSON.stringify(all);
    expect(text).not.toContain(token);
    expect(text).not.toContain("another secret");
    const a1 = JSON.parse((await run(["audit", "list", "--principal", "a1", "--json"])).out);
    expect(a1.map((e: { action: string }) => e.action)).toEqual(["token.create"]);
    expect(JSON.parse((await run(["audit", "list", "--limit", "1", "--json"])).out)).toHaveLength(1);
    expect(JSON.parse((await run(["audit", "list", "--since", "2999-01-01T00:00:00Z", "--json"])).out)).toEqual([]);
    const badSince = await run(["audit", "list", "--since", "yesterday"]);
    expect(badSince.code).toBe(2);
    expect(badSince.err).toContain('--since "yesterday" is not an RFC 3339 time');
    expect((await run(["audit", "list", "--limit", "0"])).err).toContain("--limit \"0\" must be a whole number");
    expect((await run(["audit", "list"])).out).toMatch(/^TIME\s+ACTION\s+OUTCOME/);
  });

  test("client register/list/delete: public by default; a confidential secret goes to stderr once; delete revokes tokens", async () => {
    const { run, dir, storage } = await setup();
    const pub = await run(["client", "register", "agent connect", "--json"]);
    expect(pub.code).toBe(0);
    expect(pub.err).toBe("");
    expect(JSON.parse(pub.out)).toMatchObject({ name: "agent connect", client_type: "public", grant_types: ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"], scopes: ["machine", "project"] });
    const conf = await run(["client", "register", "ci runner", "--client-type", "confidential", "--scopes", "machine"]);
    expect(conf.out).toMatch(/^Registered confidential client "ci runner": cli_\S+\n$/);
    const secret = /Client secret \(shown only this once\): (cs_\S+)\n/.exec(conf.err)![1]!;
    const clientId = /(cli_\S+)/.exec(conf.out)![1]!;
    expect((await run(["client", "register", "x", "--grant-types", "client_credentials"])).err).toBe("agent: client_credentials needs a confidential client (--client-type confidential)\n");
    expect((await run(["client", "register", "x", "--grant-types", "password"])).err).toContain('unknown grant type "password"');
    const listed = await run(["client", "list"]);
    expect(listed.out).toContain("ci runner");
    expect(listed.out).toContain("client_credentials");
    expect(listed.out + JSON.stringify(JSON.parse((await run(["client", "list", "--json"])).out))).not.toContain(secret);
    const ctx = await createGatewayContext({ config: parseGatewayConfig(`${storage}auth: {}\n`, join(dir, "c.yaml")), env: {} });
    const row = (await sqlGet(ctx.db, "SELECT secret_hash, principal_id FROM oauth_clients WHERE id = ?", [clientId])) as { secret_hash: string; principal_id: string };
    expect(row.secret_hash).toBe(new Bun.CryptoHasher("sha256").update(secret).digest("hex"));
    const now = Date.now();
    await sqlAll(ctx.db, "INSERT INTO oauth_access_tokens (id, token_hash, client_id, principal_id, scopes, created_at, expires_at) VALUES ('at_x', 'h', ?, ?, '[\"machine\"]', ?, ?)", [clientId, row.principal_id, now, now + 1e6]);
    await ctx.db.close();
    const deleted = await run(["client", "delete", clientId]);
    expect(deleted.out).toBe(`Deleted client ${clientId} ("ci runner"); revoked 1 token(s).\n`);
    expect(JSON.parse((await run(["client", "list", "--json"])).out)).toHaveLength(1);
    expect(JSON.parse((await run(["principal", "list", "--json"])).out)).toEqual([]);
    expect((await run(["client", "delete", clientId])).err).toContain("no OAuth client with id");
  });

  test("serve on a port in use fails with a clear message", async () => {
    const { config, dir } = await setup();
    const busy = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    writeFileSync(config, `data_dir: ${join(dir, "data")}\nlisten: {address: 127.0.0.1, port: ${busy.port}}\nauth: {}\n`);
    const io = captureIo();
    expect(await runCli(["gateway", "serve", "--config", config], io)).toBe(1);
    expect(io.stderr).toBe(`agent: cannot start the gateway: cannot listen on 127.0.0.1:${busy.port}: the port is in use (set listen.port)\n`);
    busy.stop(true);
  });

  test("serve without a config file says how to create one", async () => {
    const io = captureIo();
    const code = await runCli(["gateway", "serve"], io);
    expect(code).toBe(1);
    expect(io.stderr).toContain("gateway config not found");
    expect(io.stderr).toContain("printf 'auth: {}\\n' >");
  });
});
