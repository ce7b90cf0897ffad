// The engine's fold of one model call's stream into parts (src/agent/message-stream.ts): two text parts
// of one message stay two parts, in the kept parts and in the part events the journal records, whether
// their deltas come one part after the other or interleaved.
import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../src/providers/events.ts";
import type { EngineEvent } from "../../src/agent/events.ts";
import { MessageStream } from "../../src/agent/message-stream.ts";

function run(events: StreamEvent[]) {
  const emitted: EngineEvent[] = [];
  let n = 0;
  const stream = new MessageStream("msg_1", () => `prt_${++n}`, (e) => emitted.push(e));
  for (const e of events) stream.push(e);
  return { stream, emitted };
}

/** The text of each part as the part events tell it (what a client folds from the records). */
function textsFromEvents(emitted: EngineEvent[]): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const e of emitted) {
    if (e.type === "part_started") texts[e.part_id] = "";
    if (e.type === "part_delta") texts[e.part_id] += e.delta;
  }
  return texts;
}

describe("two text parts of one message", () => {
  test("streamed one after the other: two parts, two part ids, each with its own text", () => {
    const { stream, emitted } = run([
      { type: "text_delta", index: 0, text: "First " },
      { type: "text_delta", index: 0, text: "part." },
      { type: "text_done", index: 0, text: "First part." },
      { type: "text_delta", index: 1, text: "Second " },
      { type: "text_delta", index: 1, text: "part." },
      { type: "text_done", index: 1, text: "Second part." },
    ]);
    expect(stream.parts).toEqual([
      { id: "prt_1", type: "text", text: "First part." },
      { id: "prt_2", type: "text", text: "Second part." },
    ]);
    expect(emitted.filter((e) => e.type === "part_started").map((e) => e.type === "part_started" && e.part_id)).toEqual(["prt_1", "prt_2"]);
    expect(textsFromEvents(emitted)).toEqual({ prt_1: "First part.", prt_2: "Second part." });
  });

  test("interleaved deltas, and a stream cut before either part finished: still two parts", () => {
    const { stream, emitted } = run([
      { type: "text_delta", index: 0, text: "A1" },
      { type: "text_delta", index: 1, text: "B1" },
      { type: "text_delta", index: 0, text: "A2" },
      { type: "text_delta", index: 1, text: "B2" },
    ]);
    stream.closeOpen();
    expect(stream.parts).toEqual([
      { id: "prt_1", type: "text", text: "A1A2" },
      { id: "prt_2", type: "text", text: "B1B2" },
    ]);
    expect(textsFromEvents(emitted)).toEqual({ prt_1: "A1A2", prt_2: "B1B2" });
  });
});
