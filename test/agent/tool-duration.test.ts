// Issue 27 item 4: a tool call's duration is the tool's own run. The time a person takes to answer the
// permission question is not part of it (a 2 ms command approved after a minute read "60.0 s").
import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import type { EngineEvent } from "../../src/agent/events.ts";
import { runToolCalls, type ToolCallPart } from "../../src/agent/tool-calls.ts";
import { defineTool, type ToolContext } from "../../src/tools/tool.ts";

function fakeClock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms), sleep: async () => {} };
}

describe("tool call durations", () => {
  test("the wait for approval is not counted; a denied call took no time of its own", async () => {
    const clock = fakeClock();
    const tool = defineTool({
      name: "slow",
      description: "d",
      inputSchema: Type.Object({}),
      async run() {
        clock.advance(25);
        return { output: "ok" };
      },
    });
    const events: EngineEvent[] = [];
    const calls: ToolCallPart[] = [
      { type: "tool_call", id: "prt_1", call_id: "c1", name: "slow", arguments: {} },
      { type: "tool_call", id: "prt_2", call_id: "c2", name: "slow", arguments: {} },
    ] as ToolCallPart[];
    let asked = 0;
    await runToolCalls(
      calls,
      {
        turnId: "trn_1",
        resultsMessageId: "msg_r",
        tools: () => tool as never,
        toolNames: () => ["slow"],
        ctx: { projectRoot: "/", cwd: "/", clock } as unknown as ToolContext,
        clock,
        maxConcurrent: 1,
        emit: (e) => events.push(e),
        authorize: async () => {
          // A person reads the question for a minute.
          clock.advance(60_000);
          return asked++ === 0 ? { allowed: true } : { allowed: false, message: "no" };
        },
        scrub: (t) => t,
      },
      new AbortController().signal,
    );
    const done = events.filter((e) => e.type === "tool_call_completed") as Extract<EngineEvent, { type: "tool_call_completed" }>[];
    expect(done.map((e) => [e.result.status, e.duration_ms])).toEqual([
      ["completed", 25],
      ["denied", 0],
    ]);
  });
});
