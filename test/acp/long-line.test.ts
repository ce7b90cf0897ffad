// `agent acp` (the compiled binary) given a message line over its 32 MiB limit: the editor gets a JSON-RPC
// Invalid Request error (id null) for it and the agent keeps serving: the next request is answered. The
// line is never held whole (lineLimit drops it as it streams in). Before, the SDK ended the connection
// and `agent acp` exited 0 without a word.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { lineLimit, MAX_LINE_BYTES } from "../../src/acp/stdio.ts";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { stopDaemons, world } from "./editor.ts";

const w = world({ script: "responses:\n  - text: unused\n", config: "" });
beforeAll(() => ensureBinary(), 300_000);
afterAll(() => stopDaemons(w));

const request = (id: number, extra: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {}, ...extra } });

test("an over-long line is answered with a JSON-RPC error and the next request still gets its answer", async () => {
  const proc = Bun.spawn([BINARY, "acp", "--demo"], { cwd: w.project, env: w.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  // 40 MiB in one line, sent in 1 MiB pieces as a pipe delivers it.
  const padding = "x".repeat(1024 * 1024);
  proc.stdin.write(`${request(1).slice(0, -2)},"padding":"`);
  for (let i = 0; i < 40; i++) {
    proc.stdin.write(padding);
    await proc.stdin.flush();
  }
  proc.stdin.write(`"}}\n${request(2)}\n`);
  await proc.stdin.flush();
  const reader = proc.stdout.getReader();
  let text = "";
  while (text.split("\n").length < 3) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const [first, second] = text.trim().split("\n").map((line) => JSON.parse(line));
  expect(first).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringMatching(new RegExp(`^Invalid Request: the message is \\d+ bytes long, over the limit of ${MAX_LINE_BYTES} bytes for one line; it was skipped$`)) } });
  expect(Number(/is (\d+) bytes/.exec(first.error.message)![1])).toBeGreaterThan(40 * 1024 * 1024);
  expect(second).toMatchObject({ jsonrpc: "2.0", id: 2, result: { protocolVersion: 1 } });
  proc.stdin.end();
  expect(await proc.exited).toBe(0);
}, 120_000);

test("lineLimit passes lines up to the limit whole, split anywhere, and reports longer ones with their length", async () => {
  const reported: number[] = [];
  const input = ["ab", "c\nxxxxx", "x\nd", "e\n", "yyyyyy", "yy\nf\n", "zzzzzzzz"];
  const out: string[] = [];
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of input) controller.enqueue(new TextEncoder().encode(piece));
      controller.close();
    },
  }).pipeThrough(lineLimit(5, (n) => reported.push(n)));
  for await (const chunk of stream) out.push(new TextDecoder().decode(chunk));
  expect(out).toEqual(["abc\n", "de\n", "f\n"]);
  expect(reported).toEqual([6, 8, 8]);
});
