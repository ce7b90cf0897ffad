// Issue 35 item 5 through the compiled binary: the session daemon uses a provider key from its
// environment (the provider receives it), yet the key is gone from the daemon's own environment as
// another process of the user sees it (/proc/<pid>/environ) — so an unsandboxed command cannot read it
// from its parent either.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type ProviderFake } from "../fakes/provider-fake.ts";

const KEY = "sk-CANARY-daemon-key-4f19ab27c0";
const base = mkdtempSync(join(tmpdir(), "agent-daemon-environ-"));
const root = join(base, "proj");
const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", SERVICE_API_KEY: KEY };
let fake: ProviderFake;

beforeAll(() => {
  ensureBinary();
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(join(env.XDG_CONFIG_HOME, "agent"), { recursive: true });
}, 300_000);
afterAll(async () => {
  Bun.spawnSync([BINARY, "sessions", "stop", "--all"], { cwd: root, env });
  await fake?.stop();
}, 60_000);

test.skipIf(process.platform !== "linux")("the daemon's key reaches the provider but not /proc/<daemon>/environ", async () => {
  fake = startProviderFake("b_chat_completions", [
    { kind: "turn", turn: { text: "Looking.", tool_calls: [{ id: "call_1", name: "shell", arguments: JSON.stringify({ command: "tr '\\0' '\\n' < /proc/$PPID/environ | grep -c SERVICE_API_KEY=sk || true" }) }] } },
    { kind: "turn", turn: { text: "done" } },
  ]);
  writeFileSync(
    join(env.XDG_CONFIG_HOME, "agent", "config.yaml"),
    `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}", auth: { type: static_key, key: "\${SERVICE_API_KEY}" } }\n` +
      "models:\n  m: { provider: local, class: full, context_window: 32000 }\ndefaults: { full: m, mini: m }\n",
  );
  writeFileSync(join(env.XDG_CONFIG_HOME, "agent", "permissions.yaml"), "allow: [shell]\n");
  const proc = Bun.spawn([BINARY, "new", "go"], { cwd: root, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(0);
  expect(fake.violations).toEqual([]);
  expect(fake.requests.length).toBe(2);
  expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  // The shell's parent is the daemon: its environment block no longer holds the key.
  const result = JSON.stringify(fake.requests[1]!.body);
  expect(result).toContain("0\\n[exit code 0]");
  const id = /session (ses_\w+)/.exec(stderr)![1]!;
  const daemon = JSON.parse(readFileSync(join(env.XDG_DATA_HOME, "agent", "sessions", id, "daemon.json"), "utf8")) as { pid: number };
  const environ = readFileSync(`/proc/${daemon.pid}/environ`, "utf8");
  expect(environ).toContain("SERVICE_API_KEY=");
  expect(environ).not.toContain(KEY);
}, 90_000);
