// Issue 37 item 4 (and item 6's `agent sessions` without a subcommand) through the compiled binary: a
// session with tool calls is forked (whole, and up to a chosen prompt), exported and imported, and each
// copy is continued with `agent exec --session`: the request the model then receives carries the copied
// history exactly (the tool call and its result included) and nothing past the cut. The session's daemon
// offers the same fork and export as routes. The model is a strict Chat Completions fake in the user's
// own (global) config.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";

const fakes: ProviderFake[] = [];
const daemons: { id: string; cwd: string; env: Record<string, string> }[] = [];
beforeAll(() => ensureBinary(), 300_000);
afterEach(async () => {
  for (const d of daemons.splice(0)) Bun.spawnSync([BINARY, "sessions", "stop", d.id], { cwd: d.cwd, env: d.env });
  for (const f of fakes.splice(0)) await f.stop();
});

const turn = (text: string, calls?: { id: string; name: string; arguments: string }[]): FakeStep => ({ kind: "turn", turn: calls ? { text, tool_calls: calls, usage: { input: 20, output: 5 } } : { text, usage: { input: 20, output: 5 } } });

function project(script: FakeStep[]) {
  const base = mkdtempSync(join(tmpdir(), "agent-transfer-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  writeFileSync(join(root, "a.txt"), "alpha-content\n");
  const config = join(base, "config", "agent");
  mkdirSync(config, { recursive: true });
  const f = startProviderFake("b_chat_completions", script);
  fakes.push(f);
  writeFileSync(join(config, "config.yaml"), `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${f.base}" }\nmodels:\n  m: { provider: local, class: full, context_window: 32000 }\ndefaults: { full: m, mini: m }\n`);
  const env: Record<string, string> = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const run = async (args: string[], cwd = root) => {
    const proc = Bun.spawn([BINARY, ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  };
  return { root, base, env, f, run };
}

const sessionOf = (stderr: string) => /session (ses_[0-9a-z]{26})/.exec(stderr)![1]!;
/** The conversation part of a request (the system prompt and reminders aside). */
const history = (body: any) => (body.messages as any[]).filter((m) => m.role !== "system").map((m) => ({ role: m.role, content: m.content, tool_calls: m.tool_calls, tool_call_id: m.tool_call_id }));
const text = (body: any) => JSON.stringify(history(body));

/** Two prompts, the first with a read tool call; then one request per continuation. */
const SCRIPT = (continuations: number): FakeStep[] => [
  turn("Reading.", [{ id: "call_1", name: "read", arguments: JSON.stringify({ path: "a.txt" }) }]),
  turn("It says alpha."),
  turn("Second answer."),
  ...Array.from({ length: continuations }, (_, i) => turn(`continued ${i}`)),
];

async function seeded(continuations: number) {
  const p = project(SCRIPT(continuations));
  const first = await p.run(["exec", "what is in a.txt?"]);
  expect(first.code).toBe(0);
  const id = sessionOf(first.stderr);
  const second = await p.run(["exec", "--session", id, "second prompt"]);
  expect(second.code).toBe(0);
  return { ...p, id };
}

describe("agent sessions fork / export / import", () => {
  test("agent sessions with no subcommand lists the project's sessions", async () => {
    const p = await seeded(0);
    const r = await p.run(["sessions"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(p.id);
    expect(r.stdout).toContain("what is in a.txt?");
    const json = await p.run(["sessions", "--json"]);
    expect(JSON.parse(json.stdout.trim()).id).toBe(p.id);
  }, 90_000);

  test("a fork continues with the whole history; a fork --at 1 with the first prompt and its tool call only", async () => {
    const p = await seeded(3);
    const whole = await p.run(["sessions", "fork", p.id]);
    expect(whole.code).toBe(0);
    const wholeId = whole.stdout.trim();
    expect(wholeId).not.toBe(p.id);
    const cut = await p.run(["sessions", "fork", "--at", "1", p.id]);
    expect(cut.code).toBe(0);
    const cutId = cut.stdout.trim();
    expect((await p.run(["exec", "--session", wholeId, "third prompt"])).code).toBe(0);
    expect((await p.run(["exec", "--session", cutId, "another second prompt"])).code).toBe(0);
    expect((await p.run(["exec", "--session", p.id, "third prompt"])).code).toBe(0);
    expect(p.f.violations).toEqual([]);
    const [forWhole, forCut, forSource] = p.f.requests.slice(3).map((r) => r.body);
    // The whole fork's request is the source's own continuation, byte for byte in its history.
    expect(history(forWhole)).toEqual(history(forSource));
    expect(text(forWhole)).toContain("alpha-content");
    expect(text(forCut)).toContain("call_1");
    expect(text(forCut)).toContain("alpha-content");
    expect(text(forCut)).toContain("It says alpha.");
    expect(text(forCut)).not.toContain('"content":"second prompt"');
    expect(text(forCut)).not.toContain("Second answer.");
    const bad = await p.run(["sessions", "fork", "--at", "7", p.id]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("no prompt '7' in this session; allowed: a prompt number from 1 to 3 or a prompt's message id");
  }, 120_000);

  test("export then import round-trips the session: the imported copy continues with the same history", async () => {
    const p = await seeded(2);
    const exported = await p.run(["sessions", "export", p.id, "--output", "s.json"]);
    expect(exported.code).toBe(0);
    const doc = JSON.parse(readFileSync(join(p.root, "s.json"), "utf8"));
    expect(doc).toMatchObject({ format: "agent-session", version: 1, session: { id: p.id } });
    const imported = await p.run(["sessions", "import", "s.json"]);
    expect(imported.code).toBe(0);
    const newId = imported.stdout.trim();
    expect(newId).toMatch(/^ses_/);
    expect(newId).not.toBe(p.id);
    // Exporting the import gives the same events back.
    const again = JSON.parse((await p.run(["sessions", "export", newId])).stdout);
    expect(again.events).toEqual(doc.events);
    expect((await p.run(["exec", "--session", newId, "third prompt"])).code).toBe(0);
    expect((await p.run(["exec", "--session", p.id, "third prompt"])).code).toBe(0);
    expect(p.f.violations).toEqual([]);
    const [forImported, forSource] = p.f.requests.slice(3).map((r) => r.body);
    expect(history(forImported)).toEqual(history(forSource));
    expect(text(forImported)).toContain("alpha-content");
    // The Markdown transcript names the tool call and its result.
    const md = await p.run(["sessions", "export", "--format", "markdown", p.id]);
    expect(md.stdout).toContain("## You\n\nwhat is in a.txt?");
    expect(md.stdout).toContain("**Tool call** `read`");
    expect(md.stdout).toContain("**Result** of `read` (completed)");
    expect(md.stdout).toContain("alpha-content");
  }, 120_000);

  test("a broken export is refused naming the event and field; nothing is created", async () => {
    const p = await seeded(0);
    const doc = JSON.parse((await p.run(["sessions", "export", p.id])).stdout);
    doc.events[1] = { ...doc.events[1], turn_id: 42 };
    writeFileSync(join(p.root, "bad.json"), JSON.stringify(doc));
    const r = await p.run(["sessions", "import", "bad.json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/events\[1\] \([a-z_]+\): \/turn_id/);
    writeFileSync(join(p.root, "other.json"), JSON.stringify({ hello: 1 }));
    const other = await p.run(["sessions", "import", "other.json"]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('not a session export: format is undefined, expected "agent-session"');
    const list = await p.run(["sessions", "list", "--json"]);
    expect(list.stdout.trim().split("\n")).toHaveLength(1);
  }, 90_000);

  test("the session's daemon offers fork and export as routes", async () => {
    const p = await seeded(0);
    const started = await p.run(["continue", "--detach", p.id]);
    expect(started.code).toBe(0);
    daemons.push({ id: p.id, cwd: p.root, env: p.env });
    const dir = join(p.base, "data", "agent", "sessions", p.id);
    const { token } = JSON.parse(readFileSync(join(dir, "credential.json"), "utf8"));
    const { port } = JSON.parse(readFileSync(join(dir, "daemon.json"), "utf8"));
    const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const exported = await fetch(`http://127.0.0.1:${port}/session/export`, { headers });
    expect(exported.status).toBe(200);
    const doc = (await exported.json()) as any;
    expect(doc.session.id).toBe(p.id);
    expect(JSON.stringify(doc.events)).toContain("alpha-content");
    const md = (await (await fetch(`http://127.0.0.1:${port}/session/export?format=markdown`, { headers })).json()) as any;
    expect(md.markdown).toContain("**Tool call** `read`");
    const fork = await fetch(`http://127.0.0.1:${port}/session/fork`, { method: "POST", headers, body: JSON.stringify({ at: "1" }) });
    expect(fork.status).toBe(201);
    const { session_id } = (await fork.json()) as any;
    const list = await p.run(["sessions", "list", "--json"]);
    expect(list.stdout).toContain(session_id);
    const bad = await fetch(`http://127.0.0.1:${port}/session/fork`, { method: "POST", headers, body: JSON.stringify({ at: "9" }) });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).message).toContain("no prompt '9'");
  }, 120_000);
});
