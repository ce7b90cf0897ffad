// Checkpoints through the compiled binary (issue 36, item 1): a session daemon (`agent new --detach`)
// whose model (a local Chat Completions server in the user's own config, scripting the tool calls) edits
// files with the file tools and changes one with a shell command; `/undo` and `/rewind` run as session
// commands through the daemon's HTTP route (the one the TUI, ACP editors and gateway clients use). What
// is checked is what a user sees: the files on disk, the command's answer, and the request the model
// receives next.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DaemonClient, DaemonRequestError } from "../../src/client/daemon-client.ts";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { processExists } from "../helpers/processes.ts";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";
import { scriptedCalls, stopDaemons } from "./scripted-calls.ts";

let fake: ProviderFake | undefined;
const daemons: number[] = [];

beforeAll(() => ensureBinary(), 300_000);
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});
afterAll(() => stopDaemons(daemons));

const { call, turn } = scriptedCalls();

/** A git repository with three files, the user's config naming the scripted model, rules allowing edits and commands. */
function project(script: FakeStep[]) {
  const base = mkdtempSync(join(tmpdir(), "agent-checkpoints-e2e-"));
  const root = join(base, "proj");
  mkdirSync(root);
  expect(Bun.spawnSync(["git", "init", "--quiet", root]).exitCode).toBe(0);
  for (const [name, text] of [["a.txt", "A0\n"], ["b.txt", "B0\n"], ["c.txt", "C0\n"]]) writeFileSync(join(root, name!), text!);
  const config = join(base, "config", "agent");
  mkdirSync(config, { recursive: true });
  fake = startProviderFake("b_chat_completions", script);
  writeFileSync(
    join(config, "config.yaml"),
    `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\n` +
      "models:\n  m: { provider: local, class: full, context_window: 32000 }\n" +
      "defaults: { full: m, mini: m }\ndefault_permission_matcher: standard\n",
  );
  writeFileSync(join(config, "permissions.yaml"), "allow:\n  - edit\n  - shell\n");
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const read = (name: string) => readFileSync(join(root, name), "utf8");
  const agent = (args: string[]) => {
    const p = Bun.spawnSync([BINARY, ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
    return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
  };
  /** For runs that call the model: the fake answers from this process, so the run must not block it. */
  const run = async (args: string[]) => {
    const proc = Bun.spawn([BINARY, ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, out, err };
  };
  return { base, root, env, read, agent, run, fake: fake! };
}

/** The client of a session's daemon, from the files `agent new` wrote. */
function clientOf(sessionDir: string): { client: DaemonClient; pid: number } {
  const { port, pid } = JSON.parse(readFileSync(join(sessionDir, "daemon.json"), "utf8")) as { port: number; pid: number };
  const { token } = JSON.parse(readFileSync(join(sessionDir, "credential.json"), "utf8")) as { token: string };
  daemons.push(pid);
  return { client: new DaemonClient({ url: `http://127.0.0.1:${port}`, token, retryDelayMs: 50 }), pid };
}

/** Waits until the session has run `requests` model calls and no turn is running. */
async function settled(client: DaemonClient, f: ProviderFake, requests: number): Promise<void> {
  for (;;) {
    const snap = await client.sync();
    if (f.requests.length >= requests && !snap.turn.busy && snap.turn.queue.length === 0) return;
    await Bun.sleep(50);
  }
}

async function refused(run: Promise<unknown>): Promise<DaemonRequestError> {
  try {
    await run;
  } catch (error) {
    if (error instanceof DaemonRequestError) return error;
    throw error;
  }
  throw new Error("the command was not refused");
}

/** The user texts of a captured request. */
const userTexts = (body: { messages: { role: string; content: unknown }[] }) =>
  body.messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));

describe("checkpoints (compiled binary, session daemon)", () => {
  test("/undo puts back two files the file tools changed and one a shell command changed; the restore points go with the session", async () => {
    const p = project([
      turn("Reading.", [call("read", { path: "b.txt" })]),
      turn("Changing.", [call("write", { path: "a.txt", content: "A1\n" }), call("edit", { path: "b.txt", old_string: "B0", new_string: "B1" }), call("shell", { command: "printf 'C1\\n' > c.txt" })]),
      turn("Done."),
    ]);
    const created = p.agent(["new", "--detach", "change the three files"]);
    expect(created.err).toBe("");
    expect(created.code).toBe(0);
    const id = created.out.trim();
    const dir = join(p.base, "data", "agent", "sessions", id);
    const { client } = clientOf(dir);
    await settled(client, p.fake, 3);
    expect(p.fake.violations).toEqual([]);
    expect([p.read("a.txt"), p.read("b.txt"), p.read("c.txt")]).toEqual(["A1\n", "B1\n", "C1\n"]);

    const listed = await client.commands();
    expect(listed.commands.map((c) => c.name)).toEqual(expect.arrayContaining(["undo", "rewind"]));

    const undone = await client.sessionCommand("undo");
    expect(undone.message).toContain("Undid the last turn's file changes");
    expect(undone.message).toContain("a.txt");
    expect(undone.message).toContain("c.txt");
    expect([p.read("a.txt"), p.read("b.txt"), p.read("c.txt")]).toEqual(["A0\n", "B0\n", "C0\n"]);

    const again = await refused(client.sessionCommand("undo"));
    expect(again.status).toBe(409);
    expect(again.message).toContain("no turn has file changes left to undo");

    expect(existsSync(join(dir, "checkpoints", "blobs"))).toBe(true);
    expect(p.agent(["sessions", "stop", id]).code).toBe(0);
    expect(p.agent(["sessions", "rm", id]).code).toBe(0);
    expect(existsSync(join(dir, "checkpoints"))).toBe(false);
  }, 120_000);

  test("agent exec --session: /undo refuses naming a file the user changed since, and exits 1 with the file as it was; --force restores it", async () => {
    const p = project([turn("Writing.", [call("write", { path: "a.txt", content: "A1\n" }), call("shell", { command: "printf 'C1\\n' > c.txt" })]), turn("Done.")]);
    const first = await p.run(["exec", "--json", "change a and c"]);
    expect(first.code).toBe(0);
    const id = (JSON.parse(first.out.split("\n")[0]!) as { session_id: string }).session_id;
    expect(id).toMatch(/^ses_/);
    expect([p.read("a.txt"), p.read("c.txt")]).toEqual(["A1\n", "C1\n"]);
    writeFileSync(join(p.root, "a.txt"), "mine\n");

    const refused = await p.run(["exec", "--session", id, "/undo"]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("/undo: not restored: a file was changed by someone else since the agent changed it: a.txt (changed since the agent changed it). Nothing was changed.");
    expect([p.read("a.txt"), p.read("c.txt")]).toEqual(["mine\n", "C1\n"]);

    const forced = await p.run(["exec", "--session", id, "/undo --force"]);
    expect(forced.code).toBe(0);
    expect(forced.err).toContain("restored a.txt, c.txt.");
    expect([p.read("a.txt"), p.read("c.txt")]).toEqual(["A0\n", "C0\n"]);
  }, 120_000);

  test("/rewind to an earlier prompt after a daemon restart: a file the user changed is named and not overwritten; code and conversation go back", async () => {
    const p = project([
      turn("First.", [call("write", { path: "a.txt", content: "A1\n" })]),
      turn("Did the first."),
      turn("Second.", [call("write", { path: "a.txt", content: "A2\n" }), call("write", { path: "b.txt", content: "B2\n" })]),
      turn("Did the second."),
      turn("Third answer."),
    ]);
    const created = p.agent(["new", "--detach", "PROMPT-ONE change a"]);
    expect(created.code).toBe(0);
    const id = created.out.trim();
    const dir = join(p.base, "data", "agent", "sessions", id);
    let { client, pid } = clientOf(dir);
    await settled(client, p.fake, 2);
    await client.prompt("PROMPT-TWO change a and b");
    await settled(client, p.fake, 4);
    expect([p.read("a.txt"), p.read("b.txt")]).toEqual(["A2\n", "B2\n"]);

    // The user edits b.txt meanwhile; the daemon restarts (the restore points are in the journal and the session dir).
    writeFileSync(join(p.root, "b.txt"), "B-user\n");
    process.kill(pid, "SIGTERM");
    while (processExists(pid)) await Bun.sleep(50);
    const cred = join(dir, "credential.json");
    const restarted = Bun.spawn([BINARY, "daemon", "--session-dir", dir, "--credential-file", cred], { cwd: p.root, env: p.env, stdout: "pipe", stderr: "pipe" });
    const reader = restarted.stdout.getReader();
    await reader.read(); // the ready line
    ({ client, pid } = clientOf(dir));
    await client.sync();

    const listed = await client.sessionCommand("rewind");
    expect(listed.message).toContain("1. PROMPT-ONE change a (1 file changed)");
    expect(listed.message).toContain("2. PROMPT-TWO change a and b (2 files changed)");

    const conflict = await refused(client.sessionCommand("rewind", ["1"]));
    expect(conflict.status).toBe(409);
    expect(conflict.code).toBe("checkpoint_conflict");
    expect(conflict.message).toContain("b.txt (changed since the agent changed it)");
    expect(conflict.message).toContain("Nothing was changed");
    expect([p.read("a.txt"), p.read("b.txt")]).toEqual(["A2\n", "B-user\n"]);

    const done = await client.sessionCommand("rewind", ["1", "both", "--keep"]);
    expect(done.message).toContain("Rewound to before prompt 1");
    expect(done.data).toMatchObject({ restored: ["a.txt"], kept: ["b.txt"], prompt_text: "PROMPT-ONE change a" });
    expect([p.read("a.txt"), p.read("b.txt")]).toEqual(["A0\n", "B-user\n"]);

    // The next request the model receives no longer holds the rewound turns.
    await client.prompt("PROMPT-THREE");
    await settled(client, p.fake, 5);
    const last = p.fake.requests.at(-1)!.body;
    const texts = userTexts(last).join("\n");
    expect(texts).toContain("PROMPT-THREE");
    expect(texts).not.toContain("PROMPT-ONE");
    expect(texts).not.toContain("PROMPT-TWO");
    expect(JSON.stringify(last.messages)).not.toContain("Did the second.");
    expect(p.fake.violations).toEqual([]);
    reader.releaseLock();
  }, 120_000);
});
