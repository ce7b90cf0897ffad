// Issue 37 item 2 through the compiled binary: `agent exec` as CI and scripts drive it. A session is
// continued with --session / --continue (the next request carries the earlier exchange), an --image
// reaches the model as an image part, --output-schema asks the provider for JSON of the schema where the
// API can (Responses text.format, Chat Completions response_format), states it in the prompt where not
// (Anthropic Messages), checks the answer with ajv and asks once more when it fails; --output-last,
// --max-turns, --max-cost, --json-deltas and the stderr summary line. The models are strict fakes
// configured in the user's own (global, trusted) config or found from a vendor key variable.
import Ajv from "ajv";
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";

const fakes: ProviderFake[] = [];
beforeAll(() => ensureBinary(), 300_000);
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.stop();
});

const turn = (text: string, usage = { input: 20, output: 5 }): FakeStep => ({ kind: "turn", turn: { text, usage } });
const KEY = "sk-test-0123456789abcdef";

function project() {
  const base = mkdtempSync(join(tmpdir(), "agent-exec-headless-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  const config = join(base, "config", "agent");
  mkdirSync(config, { recursive: true });
  const env: Record<string, string> = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  return {
    root,
    env,
    /** A fake of the dialect named in the user's own config (Chat Completions or Responses). */
    model(dialect: "b_chat_completions" | "b_responses", script: FakeStep[], extra = "") {
      const f = startProviderFake(dialect, script);
      fakes.push(f);
      writeFileSync(
        join(config, "config.yaml"),
        `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${f.base}"${dialect === "b_responses" ? ", protocol: b_responses" : ""} }\n` +
          `models:\n  m: { provider: local, class: full, context_window: 32000${extra} }\n` +
          "defaults: { full: m, mini: m }\n",
      );
      return f;
    },
    async exec(args: string[], vars: Record<string, string> = {}) {
      const proc = Bun.spawn([BINARY, "exec", ...args], { cwd: root, env: { ...env, ...vars }, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { code, stdout, stderr };
    },
  };
}

const sessionOf = (stderr: string) => /session (ses_[0-9a-z]{26})/.exec(stderr)![1]!;
/** The user and assistant texts of a Chat Completions request, in order. */
const chatTexts = (body: any) => (body.messages as { role: string; content: unknown }[]).filter((m) => m.role !== "system").map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`);

describe("agent exec --session / --continue", () => {
  test("the next prompt goes to the stored session: the model receives the earlier exchange before it", async () => {
    const p = project();
    const f = p.model("b_chat_completions", [turn("Noted: the word is kiwi."), turn("The word was kiwi."), turn("Still kiwi.")]);
    const first = await p.exec(["remember the word kiwi"]);
    expect(first.code).toBe(0);
    const id = sessionOf(first.stderr);
    const second = await p.exec(["--session", id, "which word did I give you?"]);
    expect(second.stderr).toContain(`continuing session ${id}`);
    expect(second.stdout).toBe("The word was kiwi.\n");
    expect(second.code).toBe(0);
    expect(chatTexts(f.requests[1]!.body).filter((t) => !t.includes("<system-reminder>"))).toEqual([
      expect.stringContaining("user: remember the word kiwi"),
      "assistant: Noted: the word is kiwi.",
      expect.stringContaining("user: which word did I give you?"),
    ]);
    // --continue takes the project's latest session: the same one, now with both exchanges.
    const third = await p.exec(["--continue", "--json", "and now?"]);
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout.split("\n")[0]!)).toMatchObject({ type: "session", session_id: id, continued: true });
    const texts = chatTexts(f.requests[2]!.body).join("\n");
    expect(texts).toContain("remember the word kiwi");
    expect(texts).toContain("The word was kiwi.");
    expect(f.violations).toEqual([]);
    // The session list shows one session, stopped again.
    const list = Bun.spawnSync([BINARY, "sessions", "list", "--json"], { cwd: p.root, env: p.env });
    const rows = list.stdout.toString().trim().split("\n").map((l) => JSON.parse(l));
    expect(rows.map((r: any) => [r.id, r.state])).toEqual([[id, "stopped"]]);
  }, 90_000);

  test("an unknown session and --continue without one are clear errors; nothing is sent", async () => {
    const p = project();
    const f = p.model("b_chat_completions", []);
    const unknown = await p.exec(["--session", "ses_0000000000000000000000000a", "hi"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no session ses_0000000000000000000000000a");
    const none = await p.exec(["--continue", "hi"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("--continue: no session for");
    const bad = await p.exec(["--session", "nope", "hi"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--session: not a session id: 'nope'");
    expect(f.requests).toHaveLength(0);
  }, 60_000);
});

// A 1x1 PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

describe("agent exec --image", () => {
  test("the image reaches the model as an image part of the user message, typed by its bytes", async () => {
    const p = project();
    const f = p.model("b_chat_completions", [turn("A single pixel.")], ", supports_vision: true");
    // The extension lies: the bytes say PNG.
    writeFileSync(join(p.root, "shot.jpg"), PNG);
    const r = await p.exec(["--image", "shot.jpg", "what is this?"]);
    expect(r.code).toBe(0);
    expect(f.violations).toEqual([]);
    const user = (f.requests[0]!.body.messages as any[]).filter((m) => m.role === "user").at(-1);
    expect(user.content).toContainEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } });
    expect(JSON.stringify(user.content)).toContain("what is this?");
  }, 60_000);

  test("a file that is not an image, and a model without vision, are refused before anything is sent", async () => {
    const p = project();
    const f = p.model("b_chat_completions", []);
    writeFileSync(join(p.root, "notes.png"), "just text\n");
    const notImage = await p.exec(["--image", "notes.png", "look"]);
    expect(notImage.code).toBe(1);
    expect(notImage.stderr).toContain("--image notes.png: not an image: its first bytes are not those of a PNG, JPEG, GIF or WebP file");
    writeFileSync(join(p.root, "shot.png"), PNG);
    const blind = await p.exec(["--image", "shot.png", "look"]);
    expect(blind.code).toBe(1);
    expect(blind.stderr).toContain("--image: model m does not take images (its supports_vision is false)");
    expect(f.requests).toHaveLength(0);
  }, 60_000);
});

const SCHEMA = {
  type: "object",
  properties: { verdict: { enum: ["approve", "reject"] }, issues: { type: "array", items: { type: "string" } } },
  required: ["verdict", "issues"],
  additionalProperties: false,
};
const validate = new Ajv().compile(SCHEMA);

describe("agent exec --output-schema", () => {
  test("Responses: text.format json_schema is sent; only the JSON is printed, valid against the schema, and --output-last writes it", async () => {
    const p = project();
    const g = p.model("b_responses", [turn('{"verdict":"approve","issues":[]}')]);
    writeFileSync(join(p.root, "review.schema.json"), JSON.stringify(SCHEMA));
    mkdirSync(join(p.root, "out"));
    const ok = await p.exec(["--output-schema", "review.schema.json", "--output-last", "out/last.json", "review"]);
    expect(ok.code).toBe(0);
    expect(g.violations).toEqual([]);
    expect(g.requests[0]!.body.text.format).toEqual({ type: "json_schema", name: "final_answer", schema: SCHEMA, strict: false });
    const printed = JSON.parse(ok.stdout);
    expect(validate(printed)).toBe(true);
    expect(ok.stdout).toBe('{"verdict":"approve","issues":[]}\n');
    expect(readFileSync(join(p.root, "out", "last.json"), "utf8")).toBe(ok.stdout);
  }, 90_000);

  test("Chat Completions: response_format json_schema; an answer that does not fit is retried once, told what is wrong", async () => {
    const p = project();
    const f = p.model("b_chat_completions", [turn('Here it is: {"verdict":"maybe"}'), turn('{"verdict":"reject","issues":["no tests"]}')]);
    writeFileSync(join(p.root, "s.json"), JSON.stringify(SCHEMA));
    const r = await p.exec(["--output-schema", "s.json", "review"]);
    expect(r.code).toBe(0);
    expect(f.violations).toEqual([]);
    expect(f.requests[0]!.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "final_answer", schema: SCHEMA, strict: false } });
    expect(r.stderr).toContain("the answer does not fit s.json (the answer is not JSON");
    expect(JSON.stringify(f.requests[1]!.body.messages.at(-1))).toContain("Your final answer cannot be used: the answer is not JSON");
    expect(validate(JSON.parse(r.stdout))).toBe(true);
    expect(JSON.parse(r.stdout)).toEqual({ verdict: "reject", issues: ["no tests"] });
  }, 90_000);

  test("Anthropic Messages (no structured output): the prompt states the schema; a second miss fails with exit 1 and prints nothing", async () => {
    const p = project();
    const f = startProviderFake("a_messages", [turn('{"verdict":"maybe","issues":[]}'), turn('{"verdict":"approve"}')]);
    fakes.push(f);
    writeFileSync(join(p.root, "s.json"), JSON.stringify(SCHEMA));
    const r = await p.exec(["--output-schema", "s.json", "review"], { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: f.url });
    expect(f.violations).toEqual([]);
    expect(f.requests[0]!.body.output_format).toBeUndefined();
    expect(JSON.stringify(f.requests[0]!.body.messages.at(-1))).toContain("valid against this JSON Schema");
    expect(JSON.stringify(f.requests[1]!.body.messages.at(-1))).toContain("does not match the schema");
    expect(r.stdout).toBe("");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: the answer does not fit s.json after one retry: the answer does not match the schema:");
    expect(r.stderr).toContain("issues");
  }, 90_000);

  test("a schema file that is not JSON is refused naming it", async () => {
    const p = project();
    p.model("b_chat_completions", []);
    writeFileSync(join(p.root, "bad.json"), "{ type: object");
    const r = await p.exec(["--output-schema", "bad.json", "review"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--output-schema bad.json: not JSON");
  }, 60_000);
});

describe("agent exec limits, deltas and the summary line", () => {
  test("--max-turns 1 stops after one tool round-trip with exit 3", async () => {
    const p = project();
    writeFileSync(join(p.root, "a.txt"), "alpha\n");
    const call = (id: string) => ({ kind: "turn" as const, turn: { text: "Reading.", tool_calls: [{ id, name: "read", arguments: JSON.stringify({ path: "a.txt" }) }] } });
    const f = p.model("b_chat_completions", [call("c1"), turn("Done after one round.")]);
    const r = await p.exec(["--max-turns", "1", "read a.txt twice"]);
    expect(f.violations).toEqual([]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("stopped after 1 tool round-trips");
    const bad = await p.exec(["--max-turns", "0", "x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-turns takes a whole number from 1");
  }, 60_000);

  test("--max-cost stops the run once a priced model's messages reach it (exit 3); an unpriced model is refused", async () => {
    const p = project();
    const f = startProviderFake("a_messages", [
      { kind: "turn", turn: { text: "Reading.", tool_calls: [{ id: "t1", name: "glob", arguments: JSON.stringify({ pattern: "*" }) }], usage: { input: 200_000, output: 10_000 } } },
      turn("never reached"),
    ]);
    fakes.push(f);
    const r = await p.exec(["--max-cost", "0.05", "look around"], { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: f.url });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/stopped: the run cost \$[0-9.]+, reaching --max-cost \$0\.05/);
    expect(f.requests).toHaveLength(1);
    p.model("b_chat_completions", []);
    const unpriced = await p.exec(["--max-cost", "1", "x"]);
    expect(unpriced.code).toBe(1);
    expect(unpriced.stderr).toContain("--max-cost: model m has no known price");
  }, 60_000);

  test("--json-deltas adds the text deltas; plain mode ends stderr with calls, tokens and cost", async () => {
    const p = project();
    p.model("b_chat_completions", [{ kind: "turn", turn: { text: "one two three", chunk: 4, usage: { input: 30, output: 7, cache_read: 10 } } }, turn("plain", { input: 11, output: 2 })]);
    const r = await p.exec(["--json-deltas", "count"]);
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const deltas = events.filter((e) => e.type === "part_delta");
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.map((d) => d.delta).join("")).toContain("one two three");
    const plain = await p.exec(["count again"]);
    expect(plain.code).toBe(0);
    expect(plain.stderr.trim().split("\n").at(-1)).toBe("1 model call · tokens: 11 in, 2 out · cost unknown (no price for this model)");
  }, 60_000);
});

describe("the offline demo (issue 37 item 6)", () => {
  test("its answer suggests agent setup and shows no ${VAR} placeholder", async () => {
    const p = project();
    const r = await p.exec(["--demo", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("run `agent setup` in a terminal");
    expect(r.stdout).not.toContain("${");
  }, 60_000);
});
