// The SSE parser is fed messages cut at every possible place (a large attach history arrives in many reads).
import { expect, test } from "bun:test";
import { parseSse } from "../../src/client/daemon-sse.ts";

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

test("messages split across reads anywhere, blank-line separators included, come out whole and in order", async () => {
  const text = `: hello\n\nid: 1\nevent: records\ndata: ${"x".repeat(50)}\ndata: y\n\nid: 2\ndata: z\n\n`;
  for (const size of [1, 2, 3, 7, 64]) {
    const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
    const out = [];
    for await (const m of parseSse(body(chunks))) out.push(m);
    expect(out).toEqual([{ comment: ": hello" }, { id: "1", event: "records", data: `${"x".repeat(50)}\ny` }, { id: "2", event: "message", data: "z" }]);
  }
});
