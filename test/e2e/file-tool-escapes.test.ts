// Issue 32 items 2 and 3 through the compiled binary, as an attacker would try them: a cloned repository
// links its files to the user's ~/.ssh/id_rsa (here a canary in a fake home) or into a tree its own
// `.agentblock` keeps out, and a model (a local Chat Completions server in the user's own, trusted,
// config, scripting the tool calls) asks `agent exec` for them; and a patch-form edit names a file the
// user's rules deny. Every request the model receives is captured: the canary is in none of them, nor in
// what exec prints; denials name the path; a denied file stays as it was.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";
import { scriptedCalls } from "./scripted-calls.ts";

const CANARY = "CANARY-ssh-private-key-7d41e9";
let fake: ProviderFake | undefined;

beforeAll(() => ensureBinary(), 300_000);
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

const { call, turn } = scriptedCalls();

interface Setup {
  /** The user's own permission rules (global, trusted). */
  rules?: string;
  /** The model's `edit_format` (patch: the form OpenAI models get). */
  editFormat?: string;
}

/** A home with ~/.ssh/id_rsa (the canary) and a cloned repository beside it whose files link there. */
function clonedRepo(setup: Setup = {}) {
  const base = mkdtempSync(join(tmpdir(), "agent-escape-e2e-"));
  const home = join(base, "home");
  const root = join(base, "proj");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY}\n-----END OPENSSH PRIVATE KEY-----\n`);
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(join(root, "docs"));
  writeFileSync(join(root, "docs", "guide.md"), "# Guide\nOPENSSH is mentioned here.\n");
  // What the repository commits: relative links out of the project, and into its own blocked tree.
  symlinkSync("../../home/.ssh/id_rsa", join(root, "docs", "notes.md"));
  symlinkSync("../home/.ssh", join(root, "keys"));
  mkdirSync(join(root, "vault"));
  writeFileSync(join(root, "vault", ".agentblock"), "");
  writeFileSync(join(root, "vault", "token.txt"), `${CANARY}-vault\n`);
  symlinkSync("../vault/token.txt", join(root, "docs", "token.md"));
  writeFileSync(join(root, "math.ts"), "export const one = 1;\n");
  writeFileSync(join(root, "other.ts"), "export const two = 2;\n");
  const config = join(base, "config", "agent");
  mkdirSync(config, { recursive: true });
  if (setup.rules) writeFileSync(join(config, "permissions.yaml"), setup.rules);
  const env = { HOME: home, XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  return {
    root,
    home,
    /** Starts the model with its script and writes the user's config naming it. */
    model(script: FakeStep[]) {
      fake = startProviderFake("b_chat_completions", script);
      writeFileSync(
        join(config, "config.yaml"),
        `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\n` +
          `models:\n  m: { provider: local, class: full, context_window: 32000${setup.editFormat ? `, edit_format: ${setup.editFormat}` : ""} }\n` +
          "defaults: { full: m, mini: m }\ndefault_permission_matcher: standard\n",
      );
      return fake;
    },
    async exec(prompt: string) {
      const proc = Bun.spawn([BINARY, "exec", "--json", prompt], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { code, stdout, stderr };
    },
  };
}

/** The text of every tool result the model received, in order. */
function toolResults(f: ProviderFake): string[] {
  return f.requests.flatMap((r) => ((r.body?.messages ?? []) as { role: string; content: unknown }[]).filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))));
}

/** What the last request carried: each tool result once. */
function lastResults(f: ProviderFake): string[] {
  const last = f.requests.at(-1)?.body?.messages as { role: string; content: unknown }[];
  return last.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

function expectNoCanary(f: ProviderFake, out: { stdout: string; stderr: string }) {
  expect(f.violations).toEqual([]);
  expect(f.requests.length).toBeGreaterThan(1);
  for (const r of f.requests) expect(JSON.stringify(r.body)).not.toContain(CANARY);
  expect(out.stdout).not.toContain(CANARY);
  expect(out.stderr).not.toContain(CANARY);
}

describe("links out of the project (compiled binary, agent exec)", () => {
  test("grep over the repository does not return a linked ~/.ssh/id_rsa, and says it skipped the links", async () => {
    const repo = clonedRepo();
    const f = repo.model([turn("Searching.", [call("grep", { pattern: "OPENSSH|CANARY" }), call("glob", { pattern: "**/*.md" })]), turn("done")]);
    const r = await repo.exec("find the keys");
    expect(r.code).toBe(0);
    expectNoCanary(f, r);
    const [grep, glob] = lastResults(f);
    expect(grep).toContain("docs/guide.md:2: OPENSSH is mentioned here.");
    expect(grep).toContain("[skipped 2 symlinks leading outside the project: `docs/notes.md`, `keys`.");
    expect(glob).toContain("docs/guide.md");
    expect(glob).toContain("[skipped 1 symlink leading outside the project: `docs/notes.md`.");
  }, 90_000);

  test("read, grep and glob aimed at the links themselves are denied in exec, naming the link and where it leads", async () => {
    const repo = clonedRepo();
    const f = repo.model([
      turn("Reading.", [call("read", { path: "docs/notes.md" }), call("grep", { pattern: "CANARY", path: "docs/notes.md" }), call("grep", { pattern: ".", path: "keys" }), call("read", { path: "keys/id_rsa" })]),
      turn("done"),
    ]);
    const r = await repo.exec("read the notes");
    expect(r.code).toBe(0);
    expectNoCanary(f, r);
    const results = lastResults(f);
    expect(results).toHaveLength(4);
    for (const result of results) expect(result).toContain("Permission denied");
    expect(results[0]).toContain("`~/.ssh/id_rsa`, where `./docs/notes.md` leads through a symlink (outside the project)");
    expect(results[2]).toContain("`~/.ssh`, where `./keys` leads through a symlink (outside the project)");
    expect(r.stdout).toContain("`~/.ssh/id_rsa`, where `./docs/notes.md` leads through a symlink (outside the project)");
  }, 90_000);

  test("a link into the repository's own .agentblock tree is blocked for read and grep", async () => {
    const repo = clonedRepo();
    const f = repo.model([turn("Reading.", [call("read", { path: "docs/token.md" }), call("grep", { pattern: "CANARY" })]), turn("done")]);
    const r = await repo.exec("read the token");
    expect(r.code).toBe(0);
    expectNoCanary(f, r);
    const [read, grep] = lastResults(f);
    expect(read).toContain("`docs/token.md` is blocked by `vault/.agentblock`");
    expect(grep).toContain("No matches for `CANARY`");
  }, 90_000);
});

describe("patch-form edits are decided per file (compiled binary, agent exec)", () => {
  const patch = (file: string, from: string, to: string) => `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch\n`;

  test("allow [edit] with deny [edit(math.ts)]: the patch is refused before any file is written, and the denial names math.ts", async () => {
    const repo = clonedRepo({ rules: "allow: [edit]\ndeny:\n  - edit(math.ts)\n", editFormat: "patch" });
    const both = `*** Begin Patch\n*** Update File: other.ts\n@@\n-export const two = 2;\n+export const two = 22;\n*** Update File: math.ts\n@@\n-export const one = 1;\n+export const one = 11;\n*** End Patch\n`;
    const f = repo.model([turn("Editing.", [call("edit", { patch: both })]), turn("done")]);
    const r = await repo.exec("change the numbers");
    expect(r.code).toBe(0);
    expect(f.violations).toEqual([]);
    expect(readFileSync(join(repo.root, "math.ts"), "utf8")).toBe("export const one = 1;\n");
    expect(readFileSync(join(repo.root, "other.ts"), "utf8")).toBe("export const two = 2;\n");
    const [result] = lastResults(f);
    expect(result).toContain("Permission denied");
    expect(result).toContain("the patch touches `./other.ts`, `./math.ts`; `edit` on `./math.ts` is denied by rule edit(math.ts)");
    // What exec prints says the same.
    expect(r.stdout).toContain("`edit` on `./math.ts` is denied by rule edit(math.ts)");
  }, 90_000);

  test("allow edit(**) lets a patch through whose files all match; a patch out through a link changes nothing", async () => {
    const repo = clonedRepo({ rules: "allow:\n  - edit(**)\n", editFormat: "patch" });
    const f = repo.model([
      turn("Editing.", [call("edit", { patch: patch("math.ts", "export const one = 1;", "export const one = 11;") })]),
      turn("And the notes.", [call("edit", { patch: "*** Begin Patch\n*** Delete File: docs/notes.md\n*** End Patch\n" })]),
      turn("done"),
    ]);
    const r = await repo.exec("change the number");
    expect(r.code).toBe(0);
    expectNoCanary(f, r);
    expect(readFileSync(join(repo.root, "math.ts"), "utf8")).toBe("export const one = 11;\n");
    expect(toolResults(f)[0]).toContain("Applied the patch:\nM math.ts");
    const results = lastResults(f);
    // `**` matches every path, the target's too, so the rules allow it; the edit tool itself refuses.
    expect(results[1]).toBe("`docs/notes.md` leads outside the project through a symlink; file tools only change files inside the project.\nNothing was changed.");
    expect(readFileSync(join(repo.home, ".ssh", "id_rsa"), "utf8")).toContain(CANARY);
  }, 90_000);
});
