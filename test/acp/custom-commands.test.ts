// Custom commands and skills for every client (issue 37 items 1 and 3), through the compiled binary: an
// editor (the official ACP SDK's client) sees them among the available commands with their descriptions,
// the daemon's GET /commands lists them for the TUI and the gateway, `/review 9 perf` sends the expanded
// prompt (captured by a local Chat Completions server), and `/shell` asks permission, shows the output and
// gives it to the model with the next prompt.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type ProviderFake } from "../fakes/provider-fake.ts";
import { agentText, startEditor, stopDaemons, world, type Editor, type World } from "./editor.ts";

let fake: ProviderFake;
let w: World;
let e: Editor | null = null;
const answers: string[] = [];

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(() => {
  ensureBinary();
  fake = startProviderFake("b_chat_completions", [1, 2, 3].map((n) => ({ kind: "turn" as const, turn: { text: `answer ${n}` } })));
  w = world({
    script: "",
    config: `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\nmodels:\n  m: { provider: local, class: full, context_window: 32000 }\ndefaults: { full: m, mini: m }\ndefault_permission_matcher: standard\n`,
  });
  write(join(w.project, ".agent", "commands", "review.md"), "---\ndescription: Review a pull request\nargument-hint: PR [FOCUS]\n---\nReview pull request #$1 with a focus on $2.\n");
  write(join(w.project, ".agent", "skills", "deploy", "SKILL.md"), "---\ndescription: Deploy the app\n---\nDeploy to $1.\n");
  write(join(w.env.XDG_CONFIG_HOME!, "agent", "commands", "frontend", "button.md"), "Make a button labelled $1.\n");
}, 300_000);
afterAll(async () => {
  await e?.close();
  stopDaemons(w);
  await fake.stop();
});

/** The text of the last user message the model received. */
function lastPrompt(): string {
  expect(fake.violations).toEqual([]);
  const user = (fake.requests.at(-1)!.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "user").at(-1)!;
  return typeof user.content === "string" ? user.content : (user.content as { text?: string }[]).map((p) => p.text ?? "").join("\n");
}

describe("custom commands for every client (compiled binary)", () => {
  test("available commands and GET /commands list them with descriptions; a command sends its expanded prompt; /shell asks, shows and tells the model", async () => {
    e = await startEditor(w, { binary: BINARY, answer: () => ({ outcome: { outcome: "selected", optionId: answers.shift() ?? "deny" } }) });
    const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    const listed = await e.waitFor((n) => n.update.sessionUpdate === "available_commands_update");
    const available = "availableCommands" in listed.update ? listed.update.availableCommands : [];
    expect(available).toContainEqual({ name: "review", description: "Review a pull request (project command)", input: { hint: "/review PR [FOCUS]" } });
    expect(available).toContainEqual(expect.objectContaining({ name: "deploy", description: "Deploy the app (skill)" }));
    expect(available).toContainEqual(expect.objectContaining({ name: "frontend:button", description: "Make a button labelled $1. (user command)" }));
    expect(available.map((c) => c.name)).toEqual(expect.arrayContaining(["init", "shell", "compact"]));

    // What the TUI and the gateway read: the daemon's own list.
    const dir = join(w.env.XDG_DATA_HOME!, "agent", "sessions", sessionId);
    const { port } = JSON.parse(readFileSync(join(dir, "daemon.json"), "utf8")) as { port: number };
    const { token } = JSON.parse(readFileSync(join(dir, "credential.json"), "utf8")) as { token: string };
    const res = await fetch(`http://127.0.0.1:${port}/commands`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const { commands } = (await res.json()) as { commands: { name: string; usage: string; summary: string }[] };
    expect(commands).toContainEqual({ name: "review", usage: "/review PR [FOCUS]", summary: "Review a pull request (project command)" });
    expect(commands).toContainEqual({ name: "deploy", usage: "/deploy [arguments]", summary: "Deploy the app (skill)" });
    expect(commands.map((c) => c.name)).toContain("frontend:button");

    await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/review 9 perf" }] });
    expect(lastPrompt()).toBe("Review pull request #9 with a focus on perf.");
    await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/frontend:button Save" }] });
    expect(lastPrompt()).toBe("Make a button labelled Save.");

    // Denied: nothing runs, and the model hears nothing of it.
    answers.push("deny");
    const before = fake.requests.length;
    await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/shell printf 'OUT-%s' denied" }] }).catch(() => undefined);
    expect(e.permissions).toHaveLength(1);
    expect(agentText(e.updates)).not.toContain("OUT-denied");
    answers.push("allow_once");
    await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/shell printf 'OUT-%s' allowed" }] });
    expect(e.permissions).toHaveLength(2);
    expect(JSON.stringify(e.permissions[1])).toContain("printf 'OUT-%s' allowed");
    expect(agentText(e.updates)).toContain("OUT-allowed");
    expect(fake.requests.length).toBe(before);
    await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "what did it print?" }] });
    const text = lastPrompt();
    expect(text).toContain("<user-shell-command>\nThe user ran this shell command: printf 'OUT-%s' allowed\nOutput:\nOUT-allowed");
    expect(text).toContain("what did it print?");
    expect(text).not.toContain("OUT-denied");
  }, 90_000);
});
