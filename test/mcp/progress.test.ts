// Progress notifications on the running tool's line (issue 23 item 5): the everything server's
// long-running operation reports its steps; the session emits them as tool_call_progress events of that
// call (throttled), the TUI's view shows the latest on the call's line while it runs, and agent exec prints a line.
import { expect, test } from "bun:test";
import { makeProject, startSession } from "../agent/harness.ts";
import { describeEvent } from "../../src/cli/exec-progress.ts";
import type { SyncRecord } from "../../src/protocol/sync-record.ts";
import { applyRecords, emptyViewState } from "../../tui/view-state.ts";
import { EVERYTHING_BIN } from "./helpers.ts";

test("a tool server's progress reaches the running call's line in the TUI view and agent exec's output", async () => {
  const tool = "mcp__ev__trigger-long-running-operation";
  const script = `responses:\n  - tool_calls:\n      - { name: tool_search, arguments: { query: "long running operation progress" } }\n      - { name: ${tool}, arguments: { duration: 2, steps: 4 } }\n  - text: done\n`;
  const project = makeProject(`providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\ndefault_permission_matcher: bypass\nmcp_servers:\n  ev: { transport: stdio, command: "${EVERYTHING_BIN}", args: [stdio], pass_env: [PATH] }\n`, { "script.yaml": script });
  const r = await startSession(project);
  r.session.submit({ text: "run it" });
  await r.session.idle();
  await r.session.close();

  const started = r.of("tool_call_started").find((e) => e.name === tool)!;
  expect(r.of("tool_call_completed").find((e) => e.result.name === tool)!.result.status).toBe("completed");
  const progress = r.of("tool_call_progress");
  expect(progress.length).toBeGreaterThanOrEqual(2);
  expect(progress.length).toBeLessThanOrEqual(4);
  for (const p of progress) expect(p).toMatchObject({ part_id: started.part_id, call_id: started.call_id, name: tool, total: 4 });
  // The SDK runs notification handlers a tick after reading them, so the last step (sent just before the
  // result) may be dropped: the result replaces the line anyway.
  expect(progress.at(-1)!.progress).toBeGreaterThanOrEqual(3);

  // The TUI's view: while the call runs, its line carries the latest report; the result replaces it.
  const completedAt = r.events.findIndex((e) => e.type === "tool_call_completed" && e.result.name === tool);
  const events = r.events.slice(0, completedAt);
  const records = events.map((e, i) => ({ version: 1, seq: String(i + 1), at: 0, ...e }) as unknown as SyncRecord);
  const view = emptyViewState();
  applyRecords(view, records);
  const line = view.blocks.find((b) => b.kind === "tool" && b.name === tool);
  const last = progress.at(-1)!.progress;
  expect(line).toMatchObject({ running: true, progress: `${last}/4 (${Math.floor((100 * last) / 4)}%)` });

  expect(describeEvent(progress[0]!)).toMatch(new RegExp(`^  ${tool} … \\d/4 \\(\\d+%\\)$`));
}, 60_000);
