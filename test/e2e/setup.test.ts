// `agent setup` in a real terminal, as a new user runs it, against a fake provider on 127.0.0.1 at
// Anthropic's path layout: pick the provider, paste the key (masked), the connection test lists the
// fake's models with that key, pick the defaults, and the written config (key in a 0600 file under the
// data root, read by command substitution) then answers `agent exec` with no key in the environment.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";
import { TermSession } from "../tui/terminal.ts";

const KEY = "sk-ant-setup-0123456789abcdef";
const open: TermSession[] = [];
const fakes: ProviderFake[] = [];

beforeAll(() => ensureBinary(), 240_000);
afterAll(async () => {
  for (const t of open) await t.close();
  for (const f of fakes) await f.stop();
});

function machine(vars: Record<string, string>) {
  const base = mkdtempSync(join(tmpdir(), "agent-setup-e2e-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color", ...vars };
  return { base, root, env };
}

const ENTER = "\r";

describe("agent setup", () => {
  test("pick Anthropic, paste the key, the connection is tested with it, defaults picked; the config then answers", async () => {
    const fake = startProviderFake("a_messages", [{ kind: "turn", turn: { text: "Hello from the configured provider.", usage: { input: 10, output: 5 } } }], {
      models: [[{ id: "claude-sonnet-5", type: "model", display_name: "Claude Sonnet 5" }, { id: "claude-haiku-4-5", type: "model", display_name: "Claude Haiku 4.5" }]],
    });
    fakes.push(fake);
    const m = machine({ ANTHROPIC_BASE_URL: fake.url });
    const t = new TermSession([BINARY, "setup"], { cwd: m.root, env: m.env });
    open.push(t);
    await t.waitFor("Which provider?", "the provider question");
    expect(t.screen()).toContain("Anthropic");
    t.write(ENTER);
    await t.waitFor("How should agent get the key?", "the key question");
    t.write(ENTER); // paste it now (the default when no key variable is set)
    await t.waitFor("Paste your Anthropic key", "the key prompt");
    t.write(KEY);
    await t.waitFor((s) => s.screen().includes("▪▪▪▪▪"), "the masked key");
    expect(t.screen()).not.toContain(KEY);
    t.write(ENTER);
    await t.waitFor("Connected: Anthropic lists 2 models.", "the connection test");
    await t.waitFor("Default model (full", "the model question");
    t.write(ENTER);
    await t.waitFor("Smaller model (mini", "the mini question");
    t.write(ENTER);
    await t.waitFor("Run `agent` to start", "the end of setup");
    expect(t.text()).not.toContain(KEY);
    // Choosing the key file turns on command substitution for the whole global config: setup says so.
    expect(t.text()).toContain("note     read with $(cat ...): $(command) substitution is now on");
    expect(t.text()).toContain("for your whole global config (config_command_substitution).");

    const listing = fake.requests.find((r) => r.path === "/v1/models")!;
    expect(listing.method).toBe("GET");
    expect(listing.headers["x-api-key"]).toBe(KEY);

    const configFile = join(m.base, "config", "agent", "config.yaml");
    const keyFile = join(m.base, "data", "agent", "keys", "anthropic.key");
    const config = readFileSync(configFile, "utf8");
    expect(config).not.toContain(KEY);
    expect(config).toContain("config_command_substitution: true");
    expect(config).toContain(`    url: "${fake.url}"`);
    expect(config).toContain(`auth: { type: static_key, key: "$(cat '${keyFile}')" }`);
    expect(config).toContain('  full: "anthropic/claude-sonnet-5"');
    expect(config).toContain('  mini: "anthropic/claude-haiku-4-5"');
    expect(config).toMatch(/# Connection test: \d{4}-\d\d-\d\d, 2 models listed\./);
    expect(readFileSync(keyFile, "utf8")).toBe(`${KEY}\n`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(m.base, "data", "agent", "keys")).mode & 0o777).toBe(0o700);

    // The written config is all it takes now: no key in the environment, no base-URL variable.
    const env = { ...m.env } as Record<string, string>;
    delete env.ANTHROPIC_BASE_URL;
    const validate = Bun.spawnSync([BINARY, "config", "validate"], { cwd: m.root, env, stdout: "pipe", stderr: "pipe" });
    expect(validate.exitCode).toBe(0);
    const proc = Bun.spawn([BINARY, "exec", "hi"], { cwd: m.root, env, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).not.toContain(KEY);
    expect([code, out]).toEqual([0, "Hello from the configured provider.\n"]);
    const sent = fake.requests.find((r) => r.path === "/v1/messages")!;
    expect(sent.headers["x-api-key"]).toBe(KEY);
    expect((sent.body as { model: string }).model).toBe("claude-sonnet-5");
  }, 90_000);

  test("without a terminal it says it needs one (exit 2) and writes nothing", () => {
    const m = machine({});
    const r = Bun.spawnSync([BINARY, "setup"], { cwd: m.root, env: m.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.toString()).toContain("agent setup asks questions: run it on a terminal");
    expect(() => statSync(join(m.base, "config", "agent", "config.yaml"))).toThrow();
  });
});
