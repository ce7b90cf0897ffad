// The (http) admin commands as a user runs them: dist/agent against a real gateway, tables for people and
// --json for scripts, meaningful exit codes, errors that name the field or value; then over HTTPS with
// trust on first use (confirmed in-process through the `confirm` seam; declined by the binary without a
// terminal; a swapped certificate refused showing both fingerprints).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Io, ParsedArgs } from "../../../src/util/cli-command.ts";
import { PinStore } from "../../../src/client/tls-pin.ts";
import * as configCli from "../../../src/gateway/admin/config-cli.ts";
import { BINARY, ensureBinary } from "../../helpers/binary.ts";
import { basic, call, confidentialClient } from "../oauth-helpers.ts";
import { tempDir, type TestGateway } from "../helpers.ts";
import { selfSignedFiles, startRegistryGateway, startTlsGateway, TOML_CONFIG, YAML_CONFIG, type RegistryGateway } from "./helpers.ts";

let r: RegistryGateway;
let files: string;
beforeAll(async () => {
  ensureBinary();
  r = await startRegistryGateway();
  files = tempDir("gw-cli-files-");
  writeFileSync(join(files, "dev.yaml"), YAML_CONFIG);
  writeFileSync(join(files, "ci.toml"), TOML_CONFIG);
  writeFileSync(join(files, "ci.conf"), TOML_CONFIG);
  writeFileSync(join(files, "bad.yml"), "permissions:\n  secret_word: [x]\n");
  writeFileSync(join(files, "setup.sh"), "#!/bin/sh\necho ready\n");
}, 240_000);
afterAll(() => r.gw.stop());

interface Run {
  code: number;
  out: string;
  err: string;
}

function clientEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: tempDir("gw-cli-home-"), XDG_DATA_HOME: tempDir("gw-cli-data-"), ...extra };
}

/** Runs dist/agent asynchronously (the gateway under test serves from this process meanwhile). */
async function agent(args: string[], env: Record<string, string> = clientEnv({ AGENT_GATEWAY_URL: r.gw.url, AGENT_GATEWAY_TOKEN: r.token })): Promise<Run> {
  const proc = Bun.spawn([BINARY, "gateway", ...args], { env, cwd: files, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

describe("dist/agent gateway config|project against a plaintext loopback gateway", () => {
  test("config register (format from the extension or --format, with --pre-run), list, show, --json", async () => {
    expect(await agent(["config", "register", "dev", "--file", "dev.yaml", "--pre-run", "setup.sh"])).toEqual({ code: 0, out: `Registered configuration dev (yaml, with pre-run.sh) on ${r.gw.url}\n`, err: "" });
    const toml = await agent(["config", "register", "ci", "--file", "ci.conf", "--format", "toml", "--json"]);
    expect(toml.code).toBe(0);
    expect(JSON.parse(toml.out)).toMatchObject({ name: "ci", format: "toml", bound_projects: 0, has_pre_run_script: false });

    const table = await agent(["config", "list"]);
    expect(table.code).toBe(0);
    expect(table.out.split("\n")[0]).toMatch(/^NAME\s+FORMAT\s+PROJECTS\s+PRE-RUN\s+UPDATED$/);
    expect(table.out).toMatch(/\nci\s+toml\s+0\s+no\s+2026-01-01T00:00:00.000Z\ndev\s+yaml\s+0\s+yes\s+/);
    expect(JSON.parse((await agent(["config", "list", "--json"])).out).map((c: { name: string }) => c.name)).toEqual(["ci", "dev"]);

    const show = await agent(["config", "show", "dev"]);
    expect(show.code).toBe(0);
    expect(show.out).toContain(`--- config.yaml\n${YAML_CONFIG}--- pre-run.sh\n#!/bin/sh\necho ready\n`);
    expect(JSON.parse((await agent(["config", "show", "ci", "--json"])).out)).toMatchObject({ config_content: TOML_CONFIG, pre_run_script: null });
  });

  test("errors name the file, field or value, with exit codes 2 (usage), 1 (refused), 4 (not found), 5 (conflict)", async () => {
    const noFormat = await agent(["config", "register", "x", "--file", join(files, "dev.txt")]);
    expect([noFormat.code, noFormat.err]).toEqual([2, expect.stringContaining("cannot tell the format")]);
    const missing = await agent(["config", "register", "x", "--file", "nope.yaml"]);
    expect([missing.code, missing.err]).toEqual([2, `agent: --file: ${join(realpathSync(files), "nope.yaml")} does not exist\n`]);
    const invalid = await agent(["config", "register", "bad", "--file", "bad.yml"]);
    expect(invalid.code).toBe(1);
    expect(invalid.err).toContain("422 validation_failed");
    expect(invalid.err).toContain("permissions.secret_word: unknown key 'secret_word'");
    const badName = await agent(["config", "register", "Bad_Name", "--file", "dev.yaml"]);
    expect([badName.code, badName.err]).toEqual([1, expect.stringContaining('invalid configuration name "Bad_Name"')]);
    expect((await agent(["config", "register", "dev", "--file", "dev.yaml"])).code).toBe(5);
    const unknown = await agent(["config", "show", "nope"]);
    expect([unknown.code, unknown.err]).toEqual([4, "agent: the gateway refused (404 not_found): no configuration named 'nope'\n"]);
  });

  test("project register, list (table and --json), remove; config remove refused while bound", async () => {
    const dir = r.projectDir();
    const reg = await agent(["project", "register", dir, "--config-name", "dev", "--json"]);
    expect(reg.code).toBe(0);
    const project = JSON.parse(reg.out);
    expect(project.id).toMatch(/^[0-9a-f]{8}$/);
    expect([project.path, project.config_name]).toEqual([realpathSync(dir), "dev"]);
    const table = await agent(["project", "list"]);
    expect(table.out).toMatch(new RegExp(`^ID\\s+CONFIG\\s+HOOKS\\s+PATH\\n${project.id}\\s+dev\\s+-\\s+${realpathSync(dir)}\\n`));
    const again = await agent(["project", "register", dir, "--config-name", "dev"]);
    expect([again.code, again.err]).toEqual([5, expect.stringContaining(`already registered as project ${project.id}`)]);
    const gone = await agent(["project", "register", join(dir, "missing"), "--config-name", "dev"]);
    expect([gone.code, gone.err]).toEqual([1, expect.stringContaining("does not exist on the gateway machine")]);

    const bound = await agent(["config", "remove", "dev"]);
    expect([bound.code, bound.err]).toEqual([5, expect.stringContaining("bound to 1 project")]);
    expect(await agent(["project", "remove", project.id])).toEqual({ code: 0, out: `Removed project ${project.id}\n`, err: "" });
    expect((await agent(["project", "remove", project.id])).code).toBe(4);
    expect(JSON.parse((await agent(["config", "remove", "dev", "--json"])).out)).toEqual({ removed: "dev" });
    expect(JSON.parse((await agent(["project", "list", "--json"])).out)).toEqual([]);
  });

  test("target problems: no URL or token (2), plaintext to a non-loopback host (2), a project-only token (1), nothing listening (3)", async () => {
    const none = await agent(["config", "list"], clientEnv());
    expect([none.code, none.err]).toEqual([2, "agent: no gateway given: pass --gateway-url URL or set AGENT_GATEWAY_URL\n"]);
    const noToken = await agent(["config", "list", "--gateway-url", r.gw.url], clientEnv());
    expect([noToken.code, noToken.err]).toEqual([2, expect.stringContaining("pass --gateway-token or set AGENT_GATEWAY_TOKEN")]);
    const plain = await agent(["config", "list", "--gateway-url", "http://gateway.example.com:19870", "--gateway-token", "pat_x"], clientEnv());
    expect([plain.code, plain.err]).toEqual([2, expect.stringContaining("plaintext http:// is allowed only to loopback")]);
    const [id, secret] = await confidentialClient(r.gw, ["project"]);
    const projectToken = (await call(r.gw, "token", { grant_type: "client_credentials" }, { Authorization: basic(id, secret) })).body.access_token;
    const scoped = await agent(["project", "list"], clientEnv({ AGENT_GATEWAY_URL: r.gw.url, AGENT_GATEWAY_TOKEN: projectToken }));
    expect([scoped.code, scoped.err]).toEqual([1, "agent: the token lacks the machine scope these commands need (403 insufficient_scope)\n"]);
    expect(scoped.err).not.toContain(projectToken);
    const closed = await agent(["config", "list", "--gateway-url", "http://127.0.0.1:9", "--gateway-token", "pat_x"], clientEnv());
    expect([closed.code, closed.err]).toEqual([3, expect.stringContaining("cannot reach the gateway at http://127.0.0.1:9")]);
  });
});

describe("over HTTPS with trust on first use", () => {
  const gateways: TestGateway[] = [];
  afterAll(async () => {
    for (const gw of gateways) await gw.stop();
  });

  function capture(env: Record<string, string>): Io & { stdout: string[]; stderr: string[] } {
    const stdout: string[] = [];
    const stderr: string[] = [];
    return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t), isTty: false, cwd: files, env, stdin: async () => "" };
  }

  test("the first run asks (confirmed) and pins; the binary then needs no prompt; a swapped certificate is refused with both fingerprints", async () => {
    const a = await selfSignedFiles();
    const gw = await startTlsGateway(a);
    gateways.push(gw);
    const token = (await gw.ctx.pats.create((await gw.ctx.principals.create("ops")).id, "cli")).token;
    const url = `https://localhost:${gw.server.port}`;
    const env = clientEnv({ AGENT_GATEWAY_URL: url, AGENT_GATEWAY_TOKEN: token });

    const declined = await agent(["config", "list"], env);
    expect(declined.code).toBe(3);
    expect(declined.err).toContain(`not trusted: SHA-256 ${a.material.fingerprint}, CN Agent Gateway for localhost; run interactively to confirm it`);
    expect(new PinStore(env).load("localhost")).toBeUndefined();

    const io = capture(env);
    const args: ParsedArgs = { flags: { file: "dev.yaml" }, positionals: ["tofu"], path: ["config", "register"] };
    const asked: string[] = [];
    expect(await configCli.register(args, io, { confirm: async (q) => (asked.push(`${q.kind} ${q.certificate.fingerprint}`), true) })).toBe(0);
    expect(asked).toEqual([`first_contact ${a.material.fingerprint}`]);
    expect(io.stdout.join("")).toBe(`Registered configuration tofu (yaml) on ${url}\n`);
    expect(new PinStore(env).load("localhost")?.fingerprint).toBe(a.material.fingerprint);

    const pinned = await agent(["config", "list", "--json"], env);
    expect(pinned.code).toBe(0);
    expect(JSON.parse(pinned.out).map((c: { name: string }) => c.name)).toEqual(["tofu"]);

    const b = await selfSignedFiles();
    const swapped = await startTlsGateway(b);
    gateways.push(swapped);
    const refused = await agent(["config", "list", "--gateway-url", `https://localhost:${swapped.server.port}`], env);
    expect(refused.code).toBe(3);
    expect(refused.err).toContain("CHANGED");
    expect(refused.err).toContain(`pinned:    ${a.material.fingerprint}`);
    expect(refused.err).toContain(`presented: ${b.material.fingerprint}`);
    expect(refused.err).not.toContain(token);
  });
});
