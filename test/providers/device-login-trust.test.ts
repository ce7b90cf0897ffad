// Where a device login authorizes, when a cloned project sets it: `agent auth provider login` sends nothing
// to a project's issuer or endpoints until the user runs `agent trust DIR`, and says so naming the field;
// once trusted, the login goes there. Through the real command tree, against a local RFC 8628 server.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { authCommandWith } from "../../src/cli/auth-commands.ts";
import { authRunners } from "../../src/cli/auth-run.ts";
import { rootCommand } from "../../src/cli/commands.ts";
import { dispatch } from "../../src/cli/dispatch.ts";
import type { CommandSpec } from "../../src/util/cli-command.ts";
import { type DeviceAuthFake, startDeviceAuthFake } from "../fakes/device-auth-server.ts";
import { InstantClock } from "../fakes/fake-clock.ts";
import { configEnv } from "../helpers/config-env.ts";
import { captureIo } from "../helpers/io.ts";

let server: DeviceAuthFake | null = null;
afterEach(async () => server?.stop());

/** The user's own provider: a device login at their company's issuer (never reached in these tests). */
const GLOBAL = `providers:
  team:
    kind: { type: custom_b_compatible }
    url: https://llm.internal.example/v1
    auth: { type: device_a, profile: work, client_id: agent-cli, issuer: "https://login.internal.example" }
`;

function setup(global: string, project: string, cwd?: string) {
  const c = configEnv();
  server = startDeviceAuthFake({ polls: ["ok"] });
  if (global) c.globalFile(global.replaceAll("FAKE", server.url));
  c.projectFile(project.replaceAll("FAKE", server.url));
  const auth = authCommandWith(async () => authRunners({ clock: new InstantClock() }));
  const tree: CommandSpec = { ...rootCommand, subcommands: rootCommand.subcommands!.map((cmd) => (cmd.name === "auth" ? auth : cmd)) };
  const run = async (argv: string[]) => {
    const io = captureIo({ cwd: cwd ? join(c.project, cwd) : c.project, env: c.env });
    const code = await dispatch(tree, argv, io);
    return { code, out: io.stdout, err: io.stderr };
  };
  const profile = join(c.home, ".local", "share", "agent", "auth", "providers", "work.json");
  return { c, run, profile };
}

const LOGIN = ["auth", "provider", "login", "--provider", "team"];

describe("a project's device-login server waits for trust", () => {
  test("project endpoints over the user's provider: refused naming the fields and 'agent trust DIR', nothing sent; trusted, the login goes there", async () => {
    const t = setup(GLOBAL, `providers:\n  team:\n    auth: { type: device_a, profile: work, device_authorization_endpoint: "FAKE/device/code", token_endpoint: "FAKE/token" }\n`);
    const refused = await t.run(LOGIN);
    expect(refused.code).toBe(1);
    expect(refused.out).toBe("");
    expect(refused.err).toContain(
      `the login of provider 'team' uses settings of .agent/config.yaml, which is not trusted: provider 'team' logs in (your approval, codes and tokens) at providers.team.auth.device_authorization_endpoint ${server!.url}/device/code, providers.team.auth.token_endpoint ${server!.url}/token. Review them, then run 'agent trust ${t.c.project}'; nothing was sent or saved`,
    );
    expect(server!.forms).toEqual([]);
    expect(existsSync(t.profile)).toBe(false);

    const trusted = await t.run(["trust", t.c.project]);
    expect(trusted.code).toBe(0);
    expect(trusted.out).toContain("providers.team.auth.device_authorization_endpoint");
    const ok = await t.run(LOGIN);
    expect(ok.err).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`open\n  ${server!.url}/device\n`);
    expect(server!.forms.map((f) => f.path)).toEqual(["/device/code", "/token"]);
    expect(JSON.parse(readFileSync(t.profile, "utf8"))).toMatchObject({ provider: "team", token_endpoint: `${server!.url}/token`, client_id: "agent-cli" });
  });

  test("a project's own provider with an issuer: the message names the issuer field, from a subdirectory too; a changed issuer asks again", async () => {
    const project = (issuer: string) => `providers:\n  team:\n    kind: { type: custom_b_compatible }\n    url: https://llm.example.net/v1\n    auth: { type: device_a, profile: work, client_id: theirs, issuer: "${issuer}" }\n`;
    const t = setup("", project("http://127.0.0.1:9/login"), "src");
    mkdirSync(join(t.c.project, "src"));
    const refused = await t.run(LOGIN);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("../.agent/config.yaml, which is not trusted: provider 'team' logs in (your approval, codes and tokens) at providers.team.auth.issuer http://127.0.0.1:9/login.");
    expect(refused.err).toContain(`run 'agent trust ${t.c.project}'`);
    expect((await t.run(["trust", t.c.project])).code).toBe(0);
    // Trusted: the login goes to the issuer (here nothing listens, so the error names its origin).
    const reached = await t.run(LOGIN);
    expect(reached.code).toBe(1);
    expect(reached.err).toContain("could not reach http://127.0.0.1:9");
    expect(reached.err).not.toContain("not trusted");
    t.c.projectFile(project("http://127.0.0.1:9/other"));
    const changed = await t.run(LOGIN);
    expect(changed.err).toContain("which changed since you trusted it: provider 'team' logs in (your approval, codes and tokens) at providers.team.auth.issuer http://127.0.0.1:9/other.");
  });

  test("a project that sets only client_id or scope needs no trust: the login goes to the user's server", async () => {
    const t = setup(GLOBAL.replace('issuer: "https://login.internal.example"', 'device_authorization_endpoint: "FAKE/device/code", token_endpoint: "FAKE/token"'), "providers:\n  team:\n    auth: { type: device_a, profile: work, client_id: project-client, scope: read }\n");
    const ok = await t.run(LOGIN);
    expect(ok.code).toBe(0);
    expect(server!.forms[0]).toMatchObject({ path: "/device/code", form: { client_id: "project-client", scope: "read" } });
  });
});
