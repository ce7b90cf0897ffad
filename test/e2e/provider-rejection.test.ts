// A request the provider refuses (HTTP 400) ends `agent exec` with exit 1 and one line on stderr that
// names the provider, the model, the vendor's own message and the config key that changes the field it
// names; the request is made once (a 400 is never retried), and the key never appears.
import { afterEach, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";

const KEY = "sk-ant-test-0123456789abcdef";
let fake: ProviderFake | null = null;

beforeAll(() => ensureBinary(), 240_000);
afterEach(async () => {
  await fake?.stop();
  fake = null;
});

test("agent exec: a 400 names provider, model, the vendor's message and the config key; exit 1; tried once", async () => {
  const vendorMessage = "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.";
  fake = startProviderFake("a_messages", [
    { kind: "error", status: 400, body: { type: "error", error: { type: "invalid_request_error", message: vendorMessage } }, headers: { "request-id": "req_011" } },
    { kind: "turn", turn: { text: "never reached" } },
  ]);
  const base = mkdtempSync(join(tmpdir(), "agent-rejection-e2e-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url };
  const proc = Bun.spawn([BINARY, "exec", "hi"], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(1);
  expect(stdout).toBe("");
  expect(stderr).toContain("provider 'anthropic' refused the request for model 'claude-sonnet-5'");
  expect(stderr).toContain(vendorMessage);
  expect(stderr).toContain("Set by: models.anthropic/claude-sonnet-5.request_option_defaults.temperature; models.anthropic/claude-sonnet-5.api.thinking");
  expect(stderr).not.toContain(KEY);
  expect(fake.requests).toHaveLength(1);
  // What was refused was the adaptive form the family asks for, not the budget form.
  expect(fake.requests[0]!.body.thinking).toEqual({ type: "adaptive", display: "summarized" });
}, 60_000);
