// Shell output over the cap: the model gets the head and tail cut at line ends and a note naming a file
// that holds the whole output (under the session dir's tool-output/), and can read that file back with
// `read` even in a headless session, where reading outside the project would otherwise be refused.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeStep, ProviderFake } from "../fakes/provider-fake.ts";
import { startStrictFake } from "../fakes/strict-fake.ts";
import { readCapturedOutput, SHELL_MAX_OUTPUT_BYTES } from "../../src/tools/shell-output.ts";
import { makeProject, startSession } from "./harness.ts";

let fake: ProviderFake | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

const LINES = 20000;
/** `line 1` ... `line 20000`: about 190 KB. */
const COMMAND = `seq -f 'line %g' 1 ${LINES}`;

function resultText(body: any, callId: string): string {
  const block = body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === "tool_result" && b.tool_use_id === callId);
  return typeof block.content === "string" ? block.content : block.content.map((b: any) => b.text).join("\n");
}

test("the cut output names the kept file; the model reads the omitted lines from it", async () => {
  const sessionDir = mkdtempSync(join(tmpdir(), "agent-session-"));
  const kept = join(sessionDir, "tool-output", "shell-toolu_1.txt");
  const steps: FakeStep[] = [
    { kind: "turn", turn: { text: "Running.", tool_calls: [{ id: "toolu_1", name: "shell", arguments: JSON.stringify({ command: COMMAND }) }] } },
    { kind: "turn", turn: { text: "Reading the rest.", tool_calls: [{ id: "toolu_2", name: "read", arguments: JSON.stringify({ path: kept, offset: 10000, limit: 3 }) }] } },
    { kind: "turn", turn: { text: "Done." } },
  ];
  fake = startStrictFake("anthropic", steps);
  const p = makeProject(`providers:
  fake: { kind: { type: custom_a_compatible }, url: "${fake.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  m: { provider: fake, provider_name: claude-sonnet-4-5, class: full, context_window: 200000 }
defaults: { full: m }
default_permission_matcher: standard
`, { ".agent/permissions.yaml": `allow:\n  - shell(${COMMAND})\n` });
  const r = await startSession(p, { sessionDir });
  r.session.submit({ text: "count" });
  await r.session.idle();
  expect(fake.violations).toEqual([]);
  expect(fake.requests).toHaveLength(3);

  const shown = resultText(fake.requests[1]!.body, "toolu_1");
  expect(shown).toStartWith("line 1\nline 2\n");
  expect(shown).toContain(`The whole output is in ${kept}: read the omitted part with \`read\` (offset `);
  expect(shown).toEndWith(`line ${LINES}\n[exit code 0]`);
  // Every line shown is a whole line of the output: the cuts fall on line ends.
  for (const line of shown.split("\n")) expect(line.startsWith("line ") || line.startsWith("[... lines ") || line === "[exit code 0]").toBe(true);
  const note = /\[\.\.\. lines (\d+)-(\d+) \(/.exec(shown)!;
  const [from, to] = [Number(note[1]), Number(note[2])];
  expect(shown).toContain(`line ${from - 1}\n[... lines ${from}-${to} `);
  expect(shown).toContain(`...]\nline ${to + 1}\n`);
  expect(readFileSync(kept, "utf8")).toBe(Array.from({ length: LINES }, (_, i) => `line ${i + 1}\n`).join(""));

  // The read of the kept file was allowed (the session's own tool-output dir) and returned the lines.
  expect(r.of("tool_call_completed").map((e) => e.result.status)).toEqual(["completed", "completed"]);
  const read = resultText(fake.requests[2]!.body, "toolu_2");
  expect(read).toContain("line 10000");
  expect(read).toContain("line 10002");
});

test("readCapturedOutput: one line longer than the cap is cut inside it; nothing is kept without a place", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-shell-out-"));
  const out = join(dir, "out");
  writeFileSync(out, `${"x".repeat(SHELL_MAX_OUTPUT_BYTES * 2)}\n`);
  const r = await readCapturedOutput(out);
  expect(r.capped).toBe(true);
  expect(r.keptAt).toBeUndefined();
  expect(r.text).toContain("Redirect to a file and read or grep it to see the rest");
  expect(r.text.length).toBeLessThan(SHELL_MAX_OUTPUT_BYTES + 1024);
});
