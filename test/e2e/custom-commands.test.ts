// Custom slash commands through the compiled binary (issue 37 item 1): `agent exec "/name args"` runs a
// project's `.agent/commands/*.md`, a user's (namespaced by folder), a Claude Code `.claude/commands` file
// and a user-invocable skill; the model (a local Chat Completions server named in the user's own config)
// receives the expanded prompt, captured here. `!` lines wait for trust, then for permission (denied in
// exec unless a rule allows them); `@file` never inlines a file from outside the project.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type ProviderFake } from "../fakes/provider-fake.ts";

const CANARY = "CANARY-outside-the-project-5b2e";
let fake: ProviderFake | undefined;

beforeAll(() => ensureBinary(), 300_000);
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function project() {
  const base = mkdtempSync(join(tmpdir(), "agent-commands-e2e-"));
  const home = join(base, "home");
  const root = join(base, "proj");
  const config = join(base, "config", "agent");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  write(join(base, "secret.txt"), `${CANARY}\n`);
  write(join(root, "docs", "guide.md"), "# Guide\nThe guide's own words.\n");
  symlinkSync("../../secret.txt", join(root, "docs", "linked.md"));
  write(
    join(root, ".agent", "commands", "review.md"),
    "---\ndescription: Review a pull request\nargument-hint: PR-NUMBER [FOCUS]\n---\nReview pull request #$1, focusing on $2. All arguments: $ARGUMENTS.\nRead @docs/guide.md first.\n",
  );
  write(join(root, ".agent", "commands", "status.md"), "---\ndescription: Summarize the status\n---\n!printf 'SHELL%s' -RAN-OUT\nSummarize the status above.\n");
  write(join(root, ".agent", "commands", "leak.md"), "Look at @../secret.txt and @docs/linked.md and @private/key.txt\n");
  write(join(root, "private", "key.txt"), `${CANARY}-denied-by-rule\n`);
  write(join(root, ".claude", "commands", "explain.md"), "Explain $ARGUMENTS simply.\n");
  // The project's .agent/commands wins over its .claude/commands.
  write(join(root, ".claude", "commands", "review.md"), "the Claude Code copy\n");
  write(join(config, "commands", "frontend", "button.md"), "---\ndescription: Make a button\n---\nMake a button labelled $1.\n");
  write(join(root, ".agent", "commands", "narrow.md"), "---\nallowed-tools: Bash(git status:*)\n---\n!printf 'NARROW%s' -RAN\nDone.\n");
  write(join(config, "commands", "fast.md"), "---\nmodel: m2\n---\nQuick: $ARGUMENTS\n");
  write(join(root, ".agent", "skills", "deploy", "SKILL.md"), "---\ndescription: Deploy the app\n---\nDeploy steps for $1: build, then upload.\n");
  const env = { HOME: home, XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  return {
    root,
    model() {
      fake = startProviderFake("b_chat_completions", [{ kind: "turn", turn: { text: "done" } }]);
      write(
        join(config, "config.yaml"),
        `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\n` +
          "models:\n  m: { provider: local, class: full, context_window: 32000 }\n  m2: { provider: local, class: mini, context_window: 32000 }\n" +
          "defaults: { full: m, mini: m }\ndefault_permission_matcher: standard\n",
      );
      return fake;
    },
    /** An allow rule in the user's own permissions.yaml. */
    allow(rule: string) {
      write(join(config, "permissions.yaml"), `allow:\n  - ${rule}\n`);
    },
    /** The user's own permissions.yaml. */
    rules(text: string) {
      write(join(config, "permissions.yaml"), text);
    },
    async exec(...args: string[]) {
      const proc = Bun.spawn([BINARY, "exec", ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { code, stdout, stderr };
    },
  };
}

/** The text of the last user message the model received. */
function prompt(f: ProviderFake): string {
  expect(f.violations).toEqual([]);
  const messages = f.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
  const user = messages.filter((m) => m.role === "user").at(-1)!;
  return typeof user.content === "string" ? user.content : (user.content as { text?: string }[]).map((p) => p.text ?? "").join("\n");
}

describe("custom commands (compiled binary, agent exec)", () => {
  test("a project command with arguments expands to the prompt the model receives, @file inlined", async () => {
    const p = project();
    const f = p.model();
    const r = await p.exec("/review 123 security");
    expect(r.stderr).toContain("sent /review");
    expect(r.code).toBe(0);
    const text = prompt(f);
    expect(text).toContain("Review pull request #123, focusing on security. All arguments: 123 security.");
    expect(text).toContain('<file path="docs/guide.md">\n# Guide\nThe guide\'s own words.');
    expect(text).not.toContain("the Claude Code copy");
    expect(r.stdout).toBe("done\n");
  }, 60_000);

  test("a user command in a folder is /folder:name; a Claude Code command without placeholders gets ARGUMENTS", async () => {
    const p = project();
    const f = p.model();
    expect((await p.exec("/frontend:button Save")).code).toBe(0);
    expect(prompt(f)).toBe("Make a button labelled Save.");
    await fake!.stop();
    const g = p.model();
    expect((await p.exec("/explain closures")).code).toBe(0);
    expect(prompt(g)).toBe("Explain closures simply.");
  }, 60_000);

  test("a skill runs as a command", async () => {
    const p = project();
    const f = p.model();
    const r = await p.exec("/deploy staging");
    expect(r.code).toBe(0);
    expect(prompt(f)).toContain("Deploy steps for staging: build, then upload.");
    expect(prompt(f)).toContain("Use the skill deploy");
  }, 60_000);

  test("@file never inlines a file outside the project, directly or through a link, nor one the rules deny reading", async () => {
    const p = project();
    const f = p.model();
    p.rules("deny:\n  - read(private/**)\n");
    const r = await p.exec("/leak");
    expect(r.code).toBe(0);
    expect(JSON.stringify(f.requests)).not.toContain(CANARY);
    expect(r.stderr).toContain("@docs/linked.md was not inlined");
    expect(r.stderr).toContain("@../secret.txt was not inlined");
    expect(r.stderr).toContain("@private/key.txt was not inlined: the permission rules deny reading it");
    expect(r.stdout + r.stderr).not.toContain(CANARY);
  }, 60_000);

  test("`!` lines of a project command: not run while the project is untrusted, denied in exec without a rule, run with one", async () => {
    const p = project();
    let f = p.model();
    let r = await p.exec("/status");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("this project is not trusted");
    expect(prompt(f)).toContain("[not run: printf 'SHELL%s' -RAN-OUT]");
    expect(JSON.stringify(f.requests)).not.toContain("SHELL-RAN-OUT");

    await fake!.stop();
    f = p.model();
    r = await p.exec("--trust-project", "/status");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("needs the user's approval");
    expect(JSON.stringify(f.requests)).not.toContain("SHELL-RAN-OUT");

    await fake!.stop();
    f = p.model();
    p.allow("shell(printf:*)");
    r = await p.exec("--trust-project", "/status");
    expect(r.code).toBe(0);
    expect(prompt(f)).toContain("$ printf 'SHELL%s' -RAN-OUT\nSHELL-RAN-OUT");
    expect(prompt(f)).toContain("Summarize the status above.");
  }, 90_000);

  test("allowed-tools narrows which ! lines run: an allowed rule does not widen it", async () => {
    const p = project();
    const f = p.model();
    p.allow("shell(printf:*)");
    const r = await p.exec("--trust-project", "/narrow");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("the command's allowed-tools (Bash(git status:*)) do not include it");
    expect(JSON.stringify(f.requests)).not.toContain("NARROW-RAN");
  }, 60_000);

  test("a command's model runs its turn", async () => {
    const p = project();
    const f = p.model();
    expect((await p.exec("/fast go")).code).toBe(0);
    expect(prompt(f)).toBe("Quick: go");
    expect(f.requests.at(-1)!.body.model).toBe("m2");
  }, 60_000);

  test("/init asks the model to write AGENTS.md; /shell is denied in exec without a rule", async () => {
    const p = project();
    const f = p.model();
    expect((await p.exec("/init")).code).toBe(0);
    expect(prompt(f)).toContain("Write an AGENTS.md file at the root of this project");
    const r = await p.exec("/shell printf 'X%s' Y");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("/shell: Permission denied: this call needs the user's approval");
    expect(r.stdout + r.stderr).not.toContain("XY");
  }, 60_000);

  test("a prompt that starts with a slash but names no command is sent as written", async () => {
    const p = project();
    const f = p.model();
    expect((await p.exec("/usr/bin is slow")).code).toBe(0);
    expect(prompt(f)).toBe("/usr/bin is slow");
  }, 60_000);
});
