// `agent new` passes --full-auto (and the other per-run permission flags) to the session's daemon: the
// model's command runs inside bubblewrap without a question; the next session, started without the flag,
// runs its commands as the config says (asked about, outside any sandbox).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";

const hasBwrap = process.platform === "linux" && Bun.which("bwrap") !== null;
const base = mkdtempSync(join(tmpdir(), "agent-sandbox-new-"));
const root = join(base, "proj");
const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
let fake: ProviderFake | undefined;

beforeAll(() => {
  ensureBinary();
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(join(env.XDG_CONFIG_HOME, "agent"), { recursive: true });
}, 300_000);
afterAll(async () => {
  Bun.spawnSync([BINARY, "sessions", "stop", "--all"], { cwd: root, env });
  await fake?.stop();
}, 60_000);

function model(script: FakeStep[]) {
  void fake?.stop();
  fake = startProviderFake("b_chat_completions", script);
  writeFileSync(
    join(env.XDG_CONFIG_HOME, "agent", "config.yaml"),
    `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\n` + "models:\n  m: { provider: local, class: full, context_window: 32000 }\ndefaults: { full: m, mini: m }\n",
  );
  return fake;
}

const touch = (file: string): FakeStep[] => [
  { kind: "turn", turn: { text: "Touching.", tool_calls: [{ id: "call_1", name: "shell", arguments: JSON.stringify({ command: `touch ${file} && tr '\\0' ' ' < /proc/1/cmdline` }) }] } },
  { kind: "turn", turn: { text: "done" } },
];

async function agentNew(args: string[]) {
  const proc = Bun.spawn([BINARY, "new", ...args], { cwd: root, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

describe.skipIf(!hasBwrap)("agent new --full-auto", () => {
  test("the daemon runs the model's command in bubblewrap without a question, for that session only", async () => {
    const f = model(touch("made.txt"));
    const r = await agentNew(["--full-auto", "go"]);
    expect(r.code).toBe(0);
    expect(f.violations).toEqual([]);
    expect(existsSync(join(root, "made.txt"))).toBe(true);
    const result = JSON.stringify(f.requests.at(-1)?.body);
    // PID 1 of the command's namespace is bubblewrap itself.
    expect(result).toContain("bwrap");
    expect(result).toContain("[exit code 0]");

    // A new session without the flag: the same command is asked about (the printer shows the question on stderr).
    model(touch("again.txt"));
    const proc = Bun.spawn([BINARY, "new", "go"], { cwd: root, env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    let seen = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) {
      seen += decoder.decode(chunk);
      if (seen.includes("? allow shell?")) break;
    }
    proc.kill();
    await proc.exited;
    expect(seen).toContain("? allow shell?");
    expect(existsSync(join(root, "again.txt"))).toBe(false);
  }, 90_000);
});
