import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ResponseAssembler } from "../../src/providers/assemble.ts";
import { streamOnce } from "../../src/providers/client.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import type { ProviderRequest } from "../../src/providers/request.ts";
import { resolveProvider } from "../../src/providers/resolve.ts";
import { scriptedProvider } from "../../src/providers/scripted-server.ts";
import { TEST_PROVIDER_MODEL_LABEL, TestScriptError } from "../../src/providers/test-provider.ts";
import { FakeClock } from "../fakes/fake-clock.ts";

const dir = mkdtempSync(join(tmpdir(), "script-"));
const SCRIPT = `# offline demo script
responses:
  - text: "I'll look at the file."
    tool_calls:
      - name: read_file
        arguments: { path: README.md }
    usage: { input_tokens: 10, output_tokens: 4 }
  - reasoning: "The file says hello."
    text: "It says hello."
  - error: { kind: overloaded, message: "scripted overload" }
`;
writeFileSync(join(dir, "demo.yaml"), SCRIPT);

const base: ProviderRequest = { model: "demo", system: null, messages: [{ role: "user", content: [{ type: "text", text: "what is in README?" }] }], tools: [], max_output_tokens: null, stop_sequences: [], reasoning: null, request_options: {} };

async function run(url: string, request: ProviderRequest) {
  const provider = resolveProvider("demo", { kind: { type: "custom_b_compatible" }, protocol: "test", url });
  expect(provider.streamUrl).toBeNull();
  // The script is served as Chat Completions on 127.0.0.1; the real client calls it.
  const served = scriptedProvider(provider, dir);
  expect(served.dialect).toBe("b_chat_completions");
  expect(served.streamUrl).toStartWith("http://127.0.0.1:");
  const a = new ResponseAssembler();
  for await (const e of streamOnce(served, request, { clock: new FakeClock() })) a.push(e);
  return a.snapshot();
}

describe("test protocol (offline demo)", () => {
  test("replays response #n for a history with n assistant messages; labelled as a demo", async () => {
    const first = await run("demo.yaml", base);
    expect(first.model).toBe(TEST_PROVIDER_MODEL_LABEL);
    expect(first.stop_reason).toBe("tool_use");
    expect(first.parts).toEqual([
      { type: "text", text: "I'll look at the file." },
      { type: "tool_call", id: "call_test_1_1", name: "read_file", arguments: { path: "README.md" } },
    ]);
    expect(first.usage.input_tokens).toBe(10);
    const second = await run(`file://${join(dir, "demo.yaml")}`, {
      ...base,
      messages: [...base.messages, { role: "assistant", content: first.parts }, { role: "tool_results", results: [{ call_id: "call_test_1_1", output: "hello" }] }],
    });
    expect(second.parts).toEqual([
      { type: "reasoning", text: "The file says hello.", replay: null },
      { type: "text", text: "It says hello." },
    ]);
    expect(second.stop_reason).toBe("end_turn");
  });

  test("scripted errors are typed provider errors; running past the script is an error", async () => {
    const twoTurns = { ...base, messages: [...base.messages, { role: "assistant" as const, content: [] }, { role: "assistant" as const, content: [] }] };
    const overload = await run("demo.yaml", twoTurns).catch((e) => e);
    expect(overload).toMatchObject({ kind: "overloaded", status: 529 });
    expect(overload.message).toContain("scripted overload");
    const e = await run("demo.yaml", { ...twoTurns, messages: [...twoTurns.messages, { role: "assistant", content: [] }] }).catch((x) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.message).toContain("has no response #4");
  });

  test("every scripted error kind the wire can carry comes back as that kind", async () => {
    const kinds = ["rate_limited", "overloaded", "context_length_exceeded", "auth", "invalid_request", "server", "network", "protocol", "invalid_tool_arguments"];
    for (const kind of kinds) {
      writeFileSync(join(dir, `${kind}.yaml`), `responses:\n  - error: { kind: ${kind}, message: "scripted ${kind}" }\n`);
      const e = await run(`${kind}.yaml`, base).catch((x) => x);
      expect(e).toBeInstanceOf(ProviderError);
      expect(e.kind).toBe(kind);
    }
  });

  test("a malformed script is a clear error naming the file and entry", async () => {
    writeFileSync(join(dir, "bad.yaml"), "responses:\n  - tool_calls:\n      - arguments: {}\n");
    const e = await run("bad.yaml", base).catch((x) => x);
    expect(e).toBeInstanceOf(TestScriptError);
    expect(e.message).toContain("bad.yaml");
    expect(e.message).toContain("responses[0].tool_calls[0].name is required");
  });
});
