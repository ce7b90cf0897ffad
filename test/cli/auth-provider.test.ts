// `agent auth provider login|logout|status` as a user runs them, against a local RFC 8628 server:
// output, exit codes, the 0600 profile on disk, and no token in anything printed.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { authCommandWith } from "../../src/cli/auth-commands.ts";
import { authRunners } from "../../src/cli/auth-run.ts";
import type { CommandSpec } from "../../src/util/cli-command.ts";
import { rootCommand } from "../../src/cli/commands.ts";
import { dispatch } from "../../src/cli/dispatch.ts";
import { runCli } from "../../src/cli/run.ts";
import { type DeviceAuthFake, startDeviceAuthFake } from "../fakes/device-auth-server.ts";
import { InstantClock } from "../fakes/fake-clock.ts";
import { configEnv } from "../helpers/config-env.ts";
import { captureIo } from "../helpers/io.ts";

let server: DeviceAuthFake | null = null;
afterEach(async () => server?.stop());

const CONFIG = (login = "") => `providers:
  coding-plan:
    kind: { type: catalog, name: c }
    auth: { type: device_a, profile: work${login ? `, ${login}` : ""} }
  second:
    kind: { type: custom_b_compatible }
    url: https://llm.internal.example/v1
    auth: { type: device_b, profile: team-b${login ? `, ${login}` : ""} }
  keyed:
    kind: { type: custom_b_compatible }
    url: http://127.0.0.1:9/v1
    auth: { type: static_key, key: plain-key-0123456789 }
`;

/** The real command tree, with the auth group's clock faked (the config points the logins at the fake server). */
function treeFor(clock: InstantClock): CommandSpec {
  const auth = authCommandWith(async () => authRunners({ clock }));
  return { ...rootCommand, subcommands: rootCommand.subcommands!.map((c) => (c.name === "auth" ? auth : c)) };
}

function setup(polls: string[], opts: { expiresIn?: number; interval?: number } = {}) {
  const c = configEnv();
  server = startDeviceAuthFake({ polls, ...opts });
  c.globalFile(CONFIG(`client_id: agent-cli, device_authorization_endpoint: "${server.url}/device/code", token_endpoint: "${server.url}/token"`));
  const clock = new InstantClock();
  const tree = treeFor(clock);
  const dataRoot = join(c.home, ".local", "share", "agent");
  const run = async (argv: string[]) => {
    const io = captureIo({ cwd: c.project, env: c.env });
    const code = await dispatch(tree, argv, io);
    return { code, out: io.stdout, err: io.stderr };
  };
  return { c, clock, run, dataRoot, profile: (name: string) => join(dataRoot, "auth", "providers", `${name}.json`) };
}

const SECRETS = [/at_\d+_x+/, /rt_\d+_y+/, /dc_secret_device_code/];
const expectNoSecrets = (text: string) => {
  for (const s of SECRETS) expect(text).not.toMatch(s);
};

describe("agent auth provider login", () => {
  test("prints the address and code, polls through pending and slow_down, stores a 0600 profile, prints no token", async () => {
    const t = setup(["authorization_pending", "slow_down", "ok"]);
    const r = await t.run(["auth", "provider", "login", "--provider", "coding-plan"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`To log in provider 'coding-plan' (device_a), open\n  ${server!.url}/device\nand enter the code\n  WDJB-MJHT\n`);
    expect(r.out).toContain(`(or open ${server!.url}/device?user_code=WDJB-MJHT, which fills in the code)`);
    expect(r.out).toContain("the code expires in 10 minutes");
    expect(r.out).toContain(`Logged in: provider 'coding-plan', profile 'work' saved to ${t.profile("work")} (access token valid until`);
    expect(r.err).toBe("");
    expect(t.clock.sleeps).toEqual([5000, 5000, 10000]); // slow_down adds 5 s to this and later polls
    expect(statSync(t.profile("work")).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.dataRoot, "auth", "providers")).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(t.profile("work"), "utf8"));
    expect(stored).toMatchObject({ kind: "device_a", profile: "work", provider: "coding-plan", tokens: { access_token: expect.stringMatching(/^at_1_/) } });
    expectNoSecrets(r.out + r.err);
  });

  test("--json: one JSON result on stdout, the instructions on stderr", async () => {
    const t = setup(["ok"]);
    const r = await t.run(["auth", "provider", "login", "--provider", "second", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ provider: "second", kind: "device_b", profile: "team-b", path: t.profile("team-b"), expires_at: expect.any(String), refreshable: true });
    expect(r.err).toContain("WDJB-MJHT");
    expectNoSecrets(r.out + r.err);
  });

  test("a denied login exits 1, says so, and stores nothing", async () => {
    const t = setup(["authorization_pending", "access_denied"]);
    const r = await t.run(["auth", "provider", "login", "--provider", "coding-plan"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("agent: the login was denied in the browser; nothing was saved\n");
    expect(existsSync(t.profile("work"))).toBe(false);
  });

  test("an expired code (server answer, or the deadline passing on the clock) exits 1 and asks to run again", async () => {
    const byServer = setup(["expired_token"]);
    const a = await byServer.run(["auth", "provider", "login", "--provider", "coding-plan"]);
    expect(a.code).toBe(1);
    expect(a.err).toContain("the code expired before the login was approved; nothing was saved. Run the login again");
    await server!.stop();
    const byClock = setup(["authorization_pending", "authorization_pending", "authorization_pending"], { expiresIn: 12, interval: 5 });
    const b = await byClock.run(["auth", "provider", "login", "--provider", "coding-plan"]);
    expect(b.code).toBe(1);
    expect(b.err).toContain("the code expired");
    expect(server!.forms.filter((f) => f.path === "/token")).toHaveLength(2); // no poll after the deadline
    expect(existsSync(byClock.profile("work"))).toBe(false);
  });

  test("an unreachable login server exits 1 naming its origin", async () => {
    const t = setup(["ok"]);
    const url = server!.url;
    await server!.stop();
    const r = await t.run(["auth", "provider", "login", "--provider", "coding-plan"]);
    expect(r.code).toBe(1);
    expect(r.err).toStartWith(`agent: login failed: could not reach ${url}: `);
    expect(r.err).toEndWith("; nothing was saved\n");
  });

  test("--profile stores under another name and says how to use it", async () => {
    const t = setup(["ok"]);
    const r = await t.run(["auth", "provider", "login", "--provider", "coding-plan", "--profile", "personal"]);
    expect(r.code).toBe(0);
    expect(existsSync(t.profile("personal"))).toBe(true);
    expect(r.err).toBe("note: providers.coding-plan.auth.profile is 'work'; set it to 'personal' to use this login\n");
  });

  test("an invalid profile name is refused before the login server is contacted", async () => {
    const t = setup(["ok"]);
    const r = await t.run(["auth", "provider", "login", "--provider", "coding-plan", "--profile", "../escape"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("auth profile name '../escape' is invalid");
    expect(server!.forms).toEqual([]);
  });
});

describe("errors a user can act on (the real command tree, no network)", () => {
  const run = async (argv: string[]) => {
    const c = configEnv();
    c.globalFile(CONFIG());
    const io = captureIo({ cwd: c.project, env: c.env });
    const code = await runCli(argv, io);
    return { code, out: io.stdout, err: io.stderr };
  };

  test("an unknown provider names the closest one and the device-login providers (exit 2)", async () => {
    const r = await run(["auth", "provider", "login", "--provider", "coding-plam"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("agent: unknown provider 'coding-plam' (did you mean 'coding-plan'?); providers with a device login: coding-plan, second\n");
  });

  test("a provider without device auth is refused with its auth type (exit 1)", async () => {
    const r = await run(["auth", "provider", "login", "--provider", "keyed"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("agent: provider 'keyed' does not use a device login (its auth type is static_key); only auth types device_a and device_b log in here\n");
    expect(r.err).not.toContain("plain-key-0123456789");
  });

  test("a device login with no server of its own is refused naming what to set, not sent to a borrowed client id (exit 1)", async () => {
    const r = await run(["auth", "provider", "login", "--provider", "coding-plan"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      "agent: provider 'coding-plan' has no device login server: set client_id and issuer (or device_authorization_endpoint and token_endpoint) in providers.coding-plan.auth (the OAuth client registered for you at the provider's authorization server; the agent borrows no vendor's client id); nothing was saved\n",
    );
    expect(r.out).toBe("");
  });

  test("--provider is required for login (exit 2); --help lists the flags", async () => {
    const r = await run(["auth", "provider", "login"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("missing --provider NAME");
    const help = await run(["auth", "provider", "login", "--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("--provider NAME");
    expect(help.out).toContain("--profile NAME");
  });
});

describe("agent auth provider status and logout", () => {
  test("status reports each device-login provider; exit 1 until all are logged in; logout removes the profile", async () => {
    const t = setup(["ok"]);
    const before = await t.run(["auth", "provider", "status"]);
    expect(before.code).toBe(1);
    expect(before.out.split("\n")[0]).toMatch(/^PROVIDER\s+LOGIN\s+PROFILE\s+STATE\s+EXPIRES$/);
    expect(before.out).toMatch(/coding-plan\s+device_a\s+work\s+not logged in\s+-/);
    expect(before.out).toMatch(/second\s+device_b\s+team-b\s+not logged in/);

    expect((await t.run(["auth", "provider", "login", "--provider", "coding-plan"])).code).toBe(0);
    const one = await t.run(["auth", "provider", "status", "--provider", "coding-plan", "--json"]);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.out)).toEqual({
      providers: [{ provider: "coding-plan", kind: "device_a", profile: "work", path: t.profile("work"), logged_in: true, state: "logged in", expires_at: expect.any(String), refreshable: true }],
      unused_profiles: [],
    });
    expectNoSecrets(one.out);

    const out = await t.run(["auth", "provider", "logout", "--provider", "coding-plan"]);
    expect(out.code).toBe(0);
    expect(out.out).toBe(`Logged out: removed profile 'work' (${t.profile("work")})\n`);
    expect(existsSync(t.profile("work"))).toBe(false);
    const again = await t.run(["auth", "provider", "logout", "--provider", "coding-plan"]);
    expect(again.out).toBe("Profile 'work' is not logged in; nothing to remove\n");
  });

  test("status flags a profile from another login kind, a corrupt file (without quoting it), and unused profiles", async () => {
    const t = setup(["ok"]);
    expect((await t.run(["auth", "provider", "login", "--provider", "second", "--profile", "work"])).code).toBe(0); // a device_b login stored as 'work'
    expect((await t.run(["auth", "provider", "login", "--provider", "second", "--profile", "old"])).code).toBe(0);
    writeFileSync(t.profile("team-b"), '{"tokens": {"access_token": "at_9_xxxxxxxx');
    const r = await t.run(["auth", "provider", "status"]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/coding-plan\s+device_a\s+work\s+stored by a device_b login, not device_a: log in again/);
    expect(r.out).toMatch(/second\s+device_b\s+team-b\s+invalid profile file: log in again/);
    expect(r.out).toContain("Stored profiles no provider uses: old (remove with 'agent auth provider logout --profile NAME')");
    expectNoSecrets(r.out + r.err);
    expect((await t.run(["auth", "provider", "logout", "--profile", "old"])).code).toBe(0);
    expect(existsSync(t.profile("old"))).toBe(false);
  });
});
