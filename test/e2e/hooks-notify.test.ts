// Hooks and notifications through the compiled binary (issue 36, items 2 and 3). The model is a local Chat
// Completions server in the user's own config, scripting its tool calls; every request it receives is
// captured, so what a hook said is checked where the model reads it. Hooks are shell scripts in the
// user's config dir (and, for the trust case, in a cloned project); the notify program is a script that
// appends its JSON argument to a file, for a session daemon started with `agent new --detach` (no view).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DaemonClient } from "../../src/client/daemon-client.ts";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
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

function script(path: string, body: string): string {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A git repository, the user's config naming the scripted model, plus `extra` config (hooks, notify). */
function project(steps: FakeStep[], extra: (dirs: { config: string; root: string; base: string }) => string, rules = "allow:\n  - edit\n  - shell\n") {
  const base = mkdtempSync(join(tmpdir(), "agent-hooks-e2e-"));
  const root = join(base, "proj");
  mkdirSync(root);
  expect(Bun.spawnSync(["git", "init", "--quiet", root]).exitCode).toBe(0);
  writeFileSync(join(root, "math.ts"), "export const one = 1;\n");
  mkdirSync(join(root, "build"));
  writeFileSync(join(root, "build", "out.js"), "built\n");
  const config = join(base, "config", "agent");
  mkdirSync(config, { recursive: true });
  fake = startProviderFake("b_chat_completions", steps);
  writeFileSync(
    join(config, "config.yaml"),
    `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\n` +
      "models:\n  m: { provider: local, class: full, context_window: 32000 }\n" +
      "defaults: { full: m, mini: m }\ndefault_permission_matcher: standard\n" +
      extra({ config, root, base }),
  );
  // The user's own rules let edits and commands run, so what stops one is the hook.
  writeFileSync(join(config, "permissions.yaml"), rules);
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const exec = async (args: string[]) => {
    const proc = Bun.spawn([BINARY, "exec", "--json", ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr, events: stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) };
  };
  const agent = (args: string[]) => {
    const p = Bun.spawnSync([BINARY, ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
    return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
  };
  return { base, root, config, env, exec, agent, fake: fake! };
}

/** The tool results the last request carried. */
function lastResults(f: ProviderFake): string[] {
  const last = f.requests.at(-1)?.body?.messages as { role: string; content: unknown }[];
  return last.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

const GUARD = `input=$(cat)
case "$input" in
  *'rm -rf'*) echo "rm -rf is not allowed in this repository; delete the files one by one" >&2; exit 2 ;;
esac
exit 0`;

describe("hooks (compiled binary, agent exec)", () => {
  test("a PreToolUse hook (Claude's Bash matcher) blocks rm -rf: the model reads its message, the files stay, exec --json shows the run", async () => {
    const p = project([turn("Cleaning.", [call("shell", { command: "rm -rf build" })]), turn("I could not delete it.")], ({ config }) => {
      const guard = script(join(config, "guard.sh"), GUARD);
      return `hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - { type: command, command: "${guard}", timeout: 30 }\n`;
    });
    const r = await p.exec(["clean the build"]);
    expect(r.code).toBe(0);
    expect(p.fake.violations).toEqual([]);
    expect(p.fake.requests).toHaveLength(2);
    const [result] = lastResults(p.fake);
    expect(result).toContain("Blocked by a PreToolUse hook: rm -rf is not allowed in this repository; delete the files one by one");
    expect(existsSync(join(p.root, "build", "out.js"))).toBe(true);
    const ran = r.events.filter((e) => e.type === "hook_ran");
    expect(ran).toHaveLength(1);
    expect(ran[0]!.hook).toMatchObject({ event: "PreToolUse", origin: "global", tool: "shell", outcome: "blocked", exit_code: 2, message: "rm -rf is not allowed in this repository; delete the files one by one" });
  }, 120_000);

  test("the same hook lets other commands run", async () => {
    const p = project([turn("Listing.", [call("shell", { command: "ls build" })]), turn("Listed.")], ({ config }) => {
      const guard = script(join(config, "guard.sh"), GUARD);
      return `hooks:\n  PreToolUse:\n    - matcher: "Bash|Edit"\n      hooks:\n        - { type: command, command: "${guard}" }\n`;
    });
    const r = await p.exec(["list the build"]);
    expect(r.code).toBe(0);
    expect(lastResults(p.fake)[0]).toContain("out.js");
    expect(r.events.find((e) => e.type === "hook_ran")?.hook.outcome).toBe("allowed");
  }, 120_000);

  test("a PostToolUse hook receives the edited file's path and the call; what it says on exit 2 reaches the model", async () => {
    const p = project(
      [turn("Reading.", [call("read", { path: "math.ts" })]), turn("Editing.", [call("edit", { path: "math.ts", old_string: "one = 1", new_string: "one = 1.0" })]), turn("Edited.")],
      ({ base }) => {
        // Inline shell text: $(...) and $VAR are the shell's at run time, not the config loader's.
        const command = `input=$(cat); printf '%s\\n' "$input" >> "${join(base, "post.jsonl")}"; echo "formatting check: use integers in $AGENT_PROJECT_DIR" >&2; exit 2`;
        return `hooks:\n  PostToolUse:\n    - matcher: Edit|Write\n      hooks:\n        - { type: command, command: ${JSON.stringify(command)} }\n`;
      },
    );
    const r = await p.exec(["edit math"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(p.root, "math.ts"), "utf8")).toBe("export const one = 1.0;\n");
    const lines = readFileSync(join(p.base, "post.jsonl"), "utf8").split("\n").filter(Boolean);
    // The read call does not match Edit|Write: one run, for the edit.
    expect(lines).toHaveLength(1);
    const event = JSON.parse(lines[0]!);
    expect(event).toMatchObject({ hook_event_name: "PostToolUse", tool_name: "edit", cwd: p.root, tool_input: { path: "math.ts", file_path: join(p.root, "math.ts"), old_string: "one = 1" } });
    expect(typeof event.session_id).toBe("string");
    expect(event.tool_response.is_error).toBe(false);
    expect(lastResults(p.fake).at(-1)).toContain(`PostToolUse hook feedback: formatting check: use integers in ${p.root}`);
  }, 120_000);

  test("an untrusted project's hooks do not run, and the trust line names them", async () => {
    const p = project([turn("Listing.", [call("shell", { command: "ls" })]), turn("Listed.")], () => "");
    mkdirSync(join(p.root, ".agent"));
    script(join(p.root, ".agent", "hook.sh"), `touch "${join(p.base, "project-hook-ran")}"`);
    writeFileSync(join(p.root, ".agent", "config.yaml"), `hooks:\n  PreToolUse:\n    - matcher: "*"\n      hooks:\n        - { type: command, command: "sh .agent/hook.sh" }\n`);
    const r = await p.exec(["list"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(p.base, "project-hook-ran"))).toBe(false);
    expect(r.events.some((e) => e.type === "hook_ran")).toBe(false);
    const notice = r.events.find((e) => e.type === "notice" && String(e.message).includes("is not trusted"));
    expect(notice?.message).toContain("PreToolUse hook for * runs: sh .agent/hook.sh (pinned with .agent/hook.sh)");
    expect(lastResults(p.fake)[0]).toContain("math.ts");
  }, 120_000);

  test("a project's hooks run once it is trusted for the run (--trust-project)", async () => {
    const p = project([turn("Listing.", [call("shell", { command: "ls" })]), turn("Listed.")], () => "");
    mkdirSync(join(p.root, ".agent"));
    script(join(p.root, ".agent", "hook.sh"), `touch "${join(p.base, "project-hook-ran")}"`);
    writeFileSync(join(p.root, ".agent", "config.yaml"), `hooks:\n  PreToolUse:\n    - matcher: "*"\n      hooks:\n        - { type: command, command: "sh .agent/hook.sh" }\n`);
    const r = await p.exec(["--trust-project", "list"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(p.base, "project-hook-ran"))).toBe(true);
    expect(r.events.find((e) => e.type === "hook_ran")?.hook).toMatchObject({ origin: "project", outcome: "allowed" });
  }, 120_000);
});

/** The client of a session's daemon, from the files `agent new` wrote. */
function clientOf(sessionDir: string): DaemonClient {
  const { port, pid } = JSON.parse(readFileSync(join(sessionDir, "daemon.json"), "utf8")) as { port: number; pid: number };
  const { token } = JSON.parse(readFileSync(join(sessionDir, "credential.json"), "utf8")) as { token: string };
  daemons.push(pid);
  return new DaemonClient({ url: `http://127.0.0.1:${port}`, token, retryDelayMs: 50 });
}

/** Waits until the notify log holds an event of `type`; returns every event logged. */
async function notified(log: string, type: string): Promise<Record<string, any>[]> {
  for (;;) {
    const events = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) : [];
    if (events.some((e) => e.type === type)) return events;
    await Bun.sleep(50);
  }
}

describe("notifications (compiled binary, detached session daemon)", () => {
  test("the notify program hears a finished turn and a waiting permission question of a session no view is attached to", async () => {
    const p = project([turn("Hello there, all set."), turn("Creating it.", [call("shell", { command: "touch made-by-model" })])], ({ config, base }) => {
      const notify = script(join(config, "notify.sh"), `printf '%s\\n' "$2" >> "${join(base, "notify.jsonl")}"`);
      return `notify: ["${notify}", "--from-agent"]\n`;
      // Commands are not allowed: the model's command waits for the person's answer.
    }, "allow:\n  - edit\n");
    const log = join(p.base, "notify.jsonl");
    const created = p.agent(["new", "--detach", "say hello"]);
    expect(created.err).toBe("");
    expect(created.code).toBe(0);
    const id = created.out.trim();
    const client = clientOf(join(p.base, "data", "agent", "sessions", id));
    const first = await notified(log, "turn_completed");
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ type: "turn_completed", session_id: id, project: p.root, project_name: "proj", text: "Hello there, all set." });

    await client.prompt("create the file");
    const events = await notified(log, "question_waiting");
    const question = events.find((e) => e.type === "question_waiting")!;
    expect(question).toMatchObject({ session_id: id, project: p.root, question_kind: "permission" });
    expect(question.text).toContain("permission wanted for shell");
    const snap = await client.sync();
    expect(snap.turn.pending_interrogatives).toHaveLength(1);
    expect(existsSync(join(p.root, "made-by-model"))).toBe(false);
    expect(p.agent(["sessions", "stop", id]).code).toBe(0);
  }, 120_000);
});
