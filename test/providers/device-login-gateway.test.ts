// Device logins against a real RFC 8628 authorization server: the project's own gateway (a separate
// implementation of the device grant, RFC 8414 metadata at /.well-known/oauth-authorization-server).
// The provider config names only the issuer and the client id registered there; the agent discovers the
// endpoints, the user approves on the gateway's /device page, the profile is saved 0600 with where it
// was issued, and the daemon's token source refreshes at that token endpoint with rotation.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { authCommandWith } from "../../src/cli/auth-commands.ts";
import { authRunners } from "../../src/cli/auth-run.ts";
import type { CommandSpec } from "../../src/util/cli-command.ts";
import { rootCommand } from "../../src/cli/commands.ts";
import { dispatch } from "../../src/cli/dispatch.ts";
import type { Clock } from "../../src/util/clock.ts";
import { DeviceLoginConfigError, metadataUrls, resolveDeviceLogin } from "../../src/providers/device-auth/endpoints.ts";
import { DeviceProfileTokens } from "../../src/providers/device-auth/profiles.ts";
import { addUser, startTestGateway, type TestGateway } from "../gateway/helpers.ts";
import { decide, publicClient } from "../gateway/oauth-helpers.ts";
import { WebClient } from "../gateway/web-client.ts";
import { configEnv } from "../helpers/config-env.ts";
import { captureIo } from "../helpers/io.ts";

let gw: TestGateway | null = null;
const servers: { stop(force?: boolean): unknown }[] = [];
afterEach(async () => {
  await gw?.stop();
  gw = null;
  for (const s of servers.splice(0)) s.stop(true);
});

/**
 * The client's clock is the gateway's fake clock: each poll interval the client sleeps moves the
 * gateway's time on, and the first sleep is when the person approves the pending code in the browser.
 */
function approvingClock(g: TestGateway, web: WebClient, approve: boolean): Clock & { slept: number[] } {
  let decided = false;
  const slept: number[] = [];
  return {
    slept,
    now: () => g.clock.now(),
    async sleep(ms: number) {
      slept.push(ms);
      g.clock.advance(ms);
      if (decided) return;
      decided = true;
      const pending = g.ctx.sqlite!.query("SELECT user_code FROM oauth_device_codes WHERE status = 'pending'").all() as { user_code: string }[];
      expect(pending).toHaveLength(1);
      await decide(g, web, pending[0]!.user_code, approve, ["machine", "project"]);
    },
  };
}

async function setup(approve = true) {
  gw = await startTestGateway("", { auth: `  oauth_token_rate_limit: {max_attempts: 1000, window_secs: 60, lockout_secs: 60}\n` });
  await addUser(gw, "ada", "correct horse battery");
  const web = new WebClient(gw.url);
  await web.login("ada", "correct horse battery");
  const clientId = await publicClient(gw);
  const c = configEnv();
  c.globalFile(`providers:
  team:
    kind: { type: custom_b_compatible }
    url: http://127.0.0.1:9/v1
    auth: { type: device_a, profile: team, issuer: "${gw.url}", client_id: ${clientId}, scope: "machine project" }
`);
  const clock = approvingClock(gw, web, approve);
  const auth = authCommandWith(async () => authRunners({ clock }));
  const tree: CommandSpec = { ...rootCommand, subcommands: rootCommand.subcommands!.map((cmd) => (cmd.name === "auth" ? auth : cmd)) };
  const run = async (argv: string[]) => {
    const io = captureIo({ cwd: c.project, env: c.env });
    const code = await dispatch(tree, argv, io);
    return { code, out: io.stdout, err: io.stderr };
  };
  const dataRoot = join(c.home, ".local", "share", "agent");
  return { g: gw, clientId, clock, run, dataRoot, profileFile: join(dataRoot, "auth", "providers", "team.json") };
}

const sessions = (g: TestGateway, token: string) => fetch(`${g.url}/api/v1/sessions`, { headers: { authorization: `Bearer ${token}` } });

describe("device login against the gateway (issuer discovery, RFC 8628)", () => {
  test("issuer + client_id are enough: the login is approved on /device, the stored token works, and the daemon refreshes it", async () => {
    const { g, clientId, clock, run, dataRoot, profileFile } = await setup();
    const r = await run(["auth", "provider", "login", "--provider", "team"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const code = r.out.match(/enter the code\n {2}(\S+)\n/)![1]!;
    expect(r.out).toContain(`open\n  ${g.url}/device\nand enter the code\n  ${code}\n`);
    expect(r.out).toContain(`Logged in: provider 'team', profile 'team' saved to ${profileFile}`);
    expect(clock.slept).toEqual([5000]); // one interval (the gateway says 5 s), approved meanwhile

    const saved = JSON.parse(readFileSync(profileFile, "utf8"));
    expect(statSync(profileFile).mode & 0o777).toBe(0o600);
    expect(saved).toMatchObject({ kind: "device_a", provider: "team", issuer: g.url, token_endpoint: `${g.url}/api/v1/oauth/token`, client_id: clientId });
    for (const t of [saved.tokens.access_token, saved.tokens.refresh_token]) expect(r.out).not.toContain(t);
    expect((await sessions(g, saved.tokens.access_token)).status).toBe(200);

    // The daemon's token source: the stored token while fresh; past expiry one refresh at the saved token endpoint.
    const source = new DeviceProfileTokens(dataRoot, { clock });
    expect(await source.accessToken("device_a", "team")).toBe(saved.tokens.access_token);
    g.clock.advance(saved.tokens.expires_at - g.clock.now() + 1000);
    const renewed = await source.accessToken("device_a", "team");
    expect(renewed).not.toBe(saved.tokens.access_token);
    expect((await sessions(g, renewed)).status).toBe(200);
    const after = JSON.parse(readFileSync(profileFile, "utf8"));
    expect(after.tokens.refresh_token).not.toBe(saved.tokens.refresh_token); // the gateway rotates refresh tokens
  });

  test("a login denied on the gateway's page exits 1 and saves nothing", async () => {
    const { run, profileFile } = await setup(false);
    const r = await run(["auth", "provider", "login", "--provider", "team"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("agent: the login was denied in the browser; nothing was saved\n");
    expect(() => statSync(profileFile)).toThrow();
  });

  test("metadata naming another issuer is refused (RFC 8414 §3.3), nothing is posted", async () => {
    gw = await startTestGateway();
    const other = gw.url.replace("127.0.0.1", "localhost");
    const e = await resolveDeviceLogin("team", { issuer: other, client_id: "c1" }, null, { clock: gw.clock as unknown as Clock }).catch((x) => x);
    expect(e).toBeInstanceOf(DeviceLoginConfigError);
    expect(e.message).toBe(`the metadata at ${other}/.well-known/oauth-authorization-server names issuer '${gw.url}', not '${other}'; check the issuer URL`);
  });
});

describe("where a device login's endpoints come from", () => {
  const clock = { now: () => 0, sleep: async () => {} } as Clock;

  test("RFC 8414 path insertion for an issuer with a path, then OpenID discovery", () => {
    expect(metadataUrls("https://id.example.com/tenant/7/")).toEqual([
      "https://id.example.com/.well-known/oauth-authorization-server/tenant/7",
      "https://id.example.com/tenant/7/.well-known/openid-configuration",
    ]);
  });

  test("OpenID configuration is used when the RFC 8414 document is absent; an issuer without a device endpoint is named", async () => {
    const seen: string[] = [];
    let withDevice = true;
    const s = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req): Response {
        const path = new URL(req.url).pathname;
        seen.push(path);
        if (path !== "/realm/.well-known/openid-configuration") return new Response("not found", { status: 404 });
        const issuer: string = `http://127.0.0.1:${new URL(req.url).port}/realm`;
        return Response.json({ issuer, token_endpoint: `${issuer}/token`, ...(withDevice ? { device_authorization_endpoint: `${issuer}/device` } : {}) });
      },
    });
    servers.push(s);
    const issuer = `http://127.0.0.1:${s.port}/realm`;
    expect(await resolveDeviceLogin("p", { issuer, client_id: "mine", scope: "openid offline_access" }, null, { clock })).toEqual({
      issuer,
      device_authorization_endpoint: `${issuer}/device`,
      token_endpoint: `${issuer}/token`,
      client_id: "mine",
      scope: "openid offline_access",
    });
    expect(seen).toEqual(["/.well-known/oauth-authorization-server/realm", "/realm/.well-known/openid-configuration"]);
    withDevice = false;
    const e = await resolveDeviceLogin("p", { issuer, client_id: "mine" }, null, { clock }).catch((x) => x);
    expect(e.message).toBe(`issuer '${issuer}' offers no device login (its metadata at ${issuer}/.well-known/openid-configuration has no device_authorization_endpoint)`);
  });

  test("config fields win over the catalog entry's; explicit URLs skip discovery; plain http only to loopback", async () => {
    const catalog = { issuer: "https://login.vendor.test", client_id: "catalog-client", scope: "a" };
    // Both URLs given: no request at all (the catalog issuer would not resolve).
    expect(
      await resolveDeviceLogin("p", { device_authorization_endpoint: "https://sso.corp.test/device", token_endpoint: "https://sso.corp.test/token" }, catalog, { clock }),
    ).toEqual({ issuer: "https://login.vendor.test", device_authorization_endpoint: "https://sso.corp.test/device", token_endpoint: "https://sso.corp.test/token", client_id: "catalog-client", scope: "a" });
    const insecure = await resolveDeviceLogin("p", { client_id: "x", device_authorization_endpoint: "http://sso.corp.test/device", token_endpoint: "https://sso.corp.test/token" }, null, { clock }).catch((e) => e);
    expect(insecure.message).toBe("providers.p.auth.device_authorization_endpoint 'http://sso.corp.test/device' must be an https:// URL (plain http only to 127.0.0.1, [::1] or localhost)");
    const missing = await resolveDeviceLogin("p", { token_endpoint: "https://sso.corp.test/token" }, null, { clock }).catch((e) => e);
    expect(missing.message).toStartWith("provider 'p' has no device login server: set client_id and issuer (or device_authorization_endpoint and token_endpoint) in providers.p.auth");
  });
});
