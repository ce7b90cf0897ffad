// Issue 32 through the compiled binary: a cloned repository links its context files (AGENTS.md, a skill,
// a facet, a subagent, each as a `.agent/` file or as a config `source`) to the user's ~/.ssh/id_rsa or a
// private note (canaries in a fake home). A model in the user's own, trusted, config captures every
// request it receives: the canary is in none of them, not even the first request's system prompt, and
// `agent exec` tells the user one line naming each file it skipped. The user's own global AGENTS.md may
// still link anywhere in their home.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";

const KEY_CANARY = "CANARY-ssh-private-key-52c0a8";
const NOTE_CANARY = "CANARY-private-note-e91b37";
let fake: ProviderFake | undefined;

beforeAll(() => ensureBinary(), 300_000);
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

const turn = (text: string, calls: { id: string; name: string; arguments: string }[] = []): FakeStep => ({ kind: "turn", turn: calls.length > 0 ? { text, tool_calls: calls } : { text } });

/** A home with ~/.ssh/id_rsa and a private note with frontmatter (what skill and subagent files parse), and a repository beside it. */
function clonedRepo() {
  const base = mkdtempSync(join(tmpdir(), "agent-context-escape-e2e-"));
  const home = join(base, "home");
  const root = join(base, "proj");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_CANARY}\n-----END OPENSSH PRIVATE KEY-----\n`);
  mkdirSync(join(home, "notes"));
  const note = `---\ndescription: ${NOTE_CANARY} in the description\n---\n${NOTE_CANARY} in the body\n`;
  writeFileSync(join(home, "notes", "private.md"), note);
  writeFileSync(join(home, "notes", "SKILL.md"), note);
  writeFileSync(join(home, "notes", "tokens.yaml"), `token: ${NOTE_CANARY}\n`);
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(join(root, ".agent"));
  const config = join(base, "config", "agent");
  mkdirSync(config, { recursive: true });
  const env = { HOME: home, XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  return {
    base,
    root,
    home,
    config,
    /** A link committed in the repository at `path` (relative to the root) pointing at `target`. */
    link(path: string, target: string) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      symlinkSync(target, join(root, path));
    },
    write(path: string, text: string) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), text);
    },
    /** Starts the model with its script and writes the user's config naming it. */
    model(script: FakeStep[]) {
      fake = startProviderFake("b_chat_completions", script);
      writeFileSync(
        join(config, "config.yaml"),
        `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\n` +
          "models:\n  m: { provider: local, class: full, context_window: 32000 }\n" +
          "defaults: { full: m, mini: m }\ndefault_permission_matcher: standard\n",
      );
      return fake;
    },
    async exec(prompt: string, ...flags: string[]) {
      const proc = Bun.spawn([BINARY, "exec", "--json", ...flags, prompt], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { code, stdout, stderr };
    },
  };
}

/** The warning notices exec printed (one JSON line each). */
function warnings(stdout: string): string[] {
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type?: string; level?: string; message?: string })
    .filter((e) => e.type === "notice" && e.level === "warning")
    .map((e) => e.message ?? "");
}

function expectNoCanary(f: ProviderFake, out: { stdout: string; stderr: string }, requests = 1) {
  expect(f.violations).toEqual([]);
  expect(f.requests.length).toBeGreaterThanOrEqual(requests);
  for (const r of f.requests) {
    const body = JSON.stringify(r.body);
    expect(body).not.toContain(KEY_CANARY);
    expect(body).not.toContain(NOTE_CANARY);
  }
  for (const text of [out.stdout, out.stderr]) {
    expect(text).not.toContain(KEY_CANARY);
    expect(text).not.toContain(NOTE_CANARY);
  }
}

/** Exactly one warning names `file`, and it says the link leads outside the project. */
function expectSkipped(stdout: string, file: string) {
  const lines = warnings(stdout).filter((w) => w.includes(file));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain("leads outside the project");
}

function systemPrompt(f: ProviderFake): string {
  const messages = f.requests[0]!.body?.messages as { role: string; content: unknown }[];
  return messages.filter((m) => m.role === "system").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

describe("project context files linked out of the project (compiled binary, agent exec)", () => {
  test("AGENTS.md at the repository root and in .agent/, and .agent/variables.yaml, linked out: skipped, the first request has no key, one line each", async () => {
    const repo = clonedRepo();
    repo.link("AGENTS.md", "../home/.ssh/id_rsa");
    repo.link(".agent/AGENTS.md", "../../home/.ssh/id_rsa");
    repo.link(".agent/variables.yaml", "../../home/notes/tokens.yaml");
    const f = repo.model([turn("done")]);
    const r = await repo.exec("hello");
    expect(r.code).toBe(0);
    expectNoCanary(f, r);
    expectSkipped(r.stdout, join(repo.root, "AGENTS.md"));
    expectSkipped(r.stdout, join(repo.root, ".agent", "AGENTS.md"));
    expectSkipped(r.stdout, join(repo.root, ".agent", "variables.yaml"));
  }, 90_000);

  test("a skill file and a skill directory linked to private notes: not listed to the model; the project's other skills are", async () => {
    const repo = clonedRepo();
    repo.link(".agent/skills/notes.md", "../../../home/notes/private.md");
    repo.link(".agent/skills/keys", "../../../home/notes");
    repo.write(".agent/skills/tidy.md", "---\ndescription: an ordinary skill of the project\n---\nDo the thing.\n");
    const f = repo.model([turn("done")]);
    const r = await repo.exec("hello");
    expect(r.code).toBe(0);
    expectNoCanary(f, r);
    expectSkipped(r.stdout, join(repo.root, ".agent", "skills", "notes.md"));
    expectSkipped(r.stdout, join(repo.root, ".agent", "skills", "keys", "SKILL.md"));
    expect(systemPrompt(f)).toContain("- tidy: an ordinary skill of the project");
  }, 90_000);

  test("a facet file linked to ~/.ssh/id_rsa: skipped, the session runs on the built-in prompt", async () => {
    const repo = clonedRepo();
    repo.link(".agent/facets/execute.md", "../../../home/.ssh/id_rsa");
    const f = repo.model([turn("done")]);
    const r = await repo.exec("hello");
    expect(r.code).toBe(0);
    expectNoCanary(f, r);
    expectSkipped(r.stdout, join(repo.root, ".agent", "facets", "execute.md"));
    expect(systemPrompt(f)).toContain("You are agent, a coding agent");
  }, 90_000);

  test("a facet of the project's own linked out cannot start, and says why", async () => {
    const repo = clonedRepo();
    repo.link(".agent/facets/review.md", "../../../home/.ssh/id_rsa");
    const f = repo.model([turn("done")]);
    const r = await repo.exec("hello", "--facet", "review");
    expect(r.code).not.toBe(0);
    expect(f.requests).toHaveLength(0);
    expectNoCanary(f, r, 0);
    expect(r.stderr).toContain(`facet 'review': skipped ${join(repo.root, ".agent", "facets", "review.md")}: it leads outside the project`);
  }, 90_000);

  test("a subagent file linked to a private note: the subagent does not exist, no request carries the note", async () => {
    const repo = clonedRepo();
    repo.link(".agent/subagents/scout.md", "../../../home/notes/private.md");
    const task = { id: "call_1", name: "task", arguments: JSON.stringify({ subagent: "scout", description: "look around", prompt: "Look around." }) };
    const f = repo.model([turn("Delegating.", [task]), turn("done")]);
    const r = await repo.exec("hello");
    expect(r.code).toBe(0);
    expectNoCanary(f, r, 2);
    expectSkipped(r.stdout, join(repo.root, ".agent", "subagents", "scout.md"));
    expect(JSON.stringify(f.requests[0]!.body)).not.toContain("- scout:");
  }, 90_000);

  test("a facet `source` and a subagent `source` linked out: the config check refuses them, naming the file, before any request", async () => {
    for (const [block, name] of [["facets", "review"], ["subagents", "helper"]] as const) {
      const repo = clonedRepo();
      repo.link("prompts/x.md", "../../home/notes/private.md");
      repo.write(".agent/config.yaml", `${block}:\n  ${name}: { source: prompts/x.md }\n`);
      const f = repo.model([turn("done")]);
      const r = await repo.exec("hello");
      expect(r.code).not.toBe(0);
      expect(f.requests).toHaveLength(0);
      expectNoCanary(f, r, 0);
      expect(r.stderr).toContain(`${block}.${name}.source: 'prompts/x.md' is a symlink that leads outside the project`);
      await fake?.stop();
    }
  }, 90_000);
});

describe("links the user made are followed", () => {
  test("a global AGENTS.md linked to a file elsewhere in the home, and a project AGENTS.md linked inside the project, both reach the model", async () => {
    const repo = clonedRepo();
    mkdirSync(join(repo.home, "dotfiles"));
    writeFileSync(join(repo.home, "dotfiles", "agents.md"), "GLOBAL-RULES-4f1c: answer briefly.\n");
    symlinkSync(join(repo.home, "dotfiles", "agents.md"), join(repo.config, "AGENTS.md"));
    repo.write("docs/agents.md", "PROJECT-RULES-8d2e: run the tests.\n");
    repo.link("AGENTS.md", "docs/agents.md");
    const f = repo.model([turn("done")]);
    const r = await repo.exec("hello");
    expect(r.code).toBe(0);
    const prompt = systemPrompt(f);
    expect(prompt).toContain("GLOBAL-RULES-4f1c");
    expect(prompt).toContain("PROJECT-RULES-8d2e");
    expect(warnings(r.stdout).filter((w) => w.includes("AGENTS.md"))).toEqual([]);
  }, 90_000);
});
