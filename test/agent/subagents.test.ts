// Subagents end to end on an HTTP provider fake: the `task` tool returns a subagent's report, subagents
// run in parallel up to the limit, a subagent's permission ask is answered (or denied) by the root
// session's client, interrupting the parent withdraws the ask and cancels the subagent, and the stall
// watchdog (on a fake clock) forces a silent stream to reconnect.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PermissionGate, PermissionRequest } from "../../src/agent/permission.ts";
import { InterrogativeError } from "../../src/agent/session-api.ts";
import { describeEvent } from "../../src/cli/exec-progress.ts";
import { FakeClock, until } from "../fakes/fake-clock.ts";
import { makeProject, startSession, waitFor } from "./harness.ts";
import { call, fromSubagent, routedConfig, startRoutingFake, task, type RoutingFake, type SeenRequest } from "./subagents-harness.ts";

let fake: RoutingFake | null = null;
afterEach(async () => {
  await fake?.stop();
  fake = null;
});

/** Asks about `write`, allows everything else. */
function askingForWrites(): PermissionGate {
  return {
    check: async (req: PermissionRequest) => (req.tool === "write" ? { kind: "ask", reason: "no rule allows write", suggestedRule: "write(*)" } : { kind: "allow" }),
    allowAlways: async () => "write(*)",
    recordAnswer: () => {},
  };
}

const parentRequests = () => fake!.requests.filter((r) => !fromSubagent(r));
const subagentRequests = () => fake!.requests.filter(fromSubagent);

describe("delegation", () => {
  test("explore reads a file on the mini model and its report is the parent's tool result", async () => {
    fake = startRoutingFake((r) => {
      if (fromSubagent(r)) {
        if (r.round === 0) return { turn: { tool_calls: [call("call_r1", "read", { path: "greet.txt" })] } };
        return { turn: { text: `REPORT: greet.txt says ${r.results.call_r1?.includes("hello world") ? "hello world" : "nothing"}` } };
      }
      if (r.round === 0) return { turn: { text: "Delegating.", tool_calls: [task("call_t1", "explore", "Where is the greeting?")] } };
      return { turn: { text: "The greeting is in greet.txt." } };
    });
    const p = makeProject(routedConfig(fake), { "greet.txt": "hello world\n" });
    const r = await startSession(p);
    r.session.submit({ text: "find the greeting" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);

    const [first, second] = parentRequests();
    expect(first!.tools).toContain("task");
    const taskTool = first!.body.tools.find((t: { name: string }) => t.name === "task");
    expect(taskTool.description).toContain("- explore: Read-only researcher");
    expect(taskTool.description).toContain("- general: ");
    expect(second!.results.call_t1).toBe("REPORT: greet.txt says hello world");

    const sub = subagentRequests();
    expect(sub).toHaveLength(2);
    expect(sub[0]!.body.model).toBe("small");
    expect(sub[0]!.task).toBe("Where is the greeting?");
    expect(sub[0]!.system).toContain("You are explore, a read-only research subagent");
    // web_search is not offered: no search provider is configured.
    expect(sub[0]!.tools).toEqual(["exit_tool", "glob", "grep", "progress_update", "read", "web_fetch"]);

    const started = r.of("subagent_started");
    expect(started).toEqual([{ type: "subagent_started", subagent_id: expect.stringMatching(/^sub_/), name: "explore", parent_tool_call_id: "call_t1", model: "small", description: "job call_t1" }]);
    expect(r.of("subagent_progress")).toEqual([{ type: "subagent_progress", subagent_id: started[0]!.subagent_id, name: "explore", activity: "tool_call", text: "read" }]);
    const done = r.of("subagent_completed");
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ status: "completed", report: "REPORT: greet.txt says hello world", tool_turns: 1 });
    const result = r.of("tool_call_completed").find((e) => e.result.call_id === "call_t1")!.result;
    expect(result).toMatchObject({ status: "completed", metadata: { subagent: "explore", status: "completed" } });
    // The subagent's own messages stay out of the parent's conversation.
    expect(r.session.conversation.entries.map((e) => e.role)).toEqual(["user", "assistant", "tool_results", "assistant"]);
    expect(r.of("tool_call_started").map((e) => e.name)).toEqual(["task"]);
    // What `agent exec` prints on stderr about it.
    expect(r.events.filter((e) => e.type.startsWith("subagent_")).map(describeEvent)).toEqual(["⇢ explore: job call_t1 (small)", "  explore → read", "⇠ explore reported (1 tool round)"]);
  });

  test("two subagents run at the same time; both reports come back in call order", async () => {
    fake = startRoutingFake((r) => {
      if (fromSubagent(r)) return { turn: { text: `${r.task.split(" ")[0]} report` }, holdAfter: 1 };
      if (r.round === 0) return { turn: { tool_calls: [task("call_a", "general", "alpha task"), task("call_b", "general", "beta task")] } };
      return { turn: { text: "both done" } };
    });
    const p = makeProject(routedConfig(fake, "default_permission_matcher: bypass\n"));
    const r = await startSession(p);
    r.session.submit({ text: "do both" });
    // Both subagent streams are open at once before either is let go.
    await waitFor(() => fake!.held() === 2, "both subagents calling the model");
    expect(r.of("subagent_completed")).toEqual([]);
    fake.release();
    await r.session.idle();
    const last = parentRequests().at(-1)!;
    expect(last.results).toEqual({ call_a: "alpha report", call_b: "beta report" });
    expect(subagentRequests().map((s) => s.body.model)).toEqual(["big", "big"]);
    // general gets the session's tools, minus delegation (no nesting), tool search and the root's goal tools.
    expect(subagentRequests()[0]!.tools).toEqual(["edit", "exit_tool", "glob", "grep", "progress_update", "read", "shell", "web_fetch", "write"]);
    expect(r.of("subagent_started").map((e) => e.parent_tool_call_id).sort()).toEqual(["call_a", "call_b"]);
    expect(r.of("subagent_completed").map((e) => e.status)).toEqual(["completed", "completed"]);
  });

  test("a fifth subagent while four run is refused with a tool error the model can act on", async () => {
    const ids = ["c1", "c2", "c3", "c4", "c5"];
    fake = startRoutingFake((r) => {
      if (fromSubagent(r)) return { turn: { text: `done ${r.task}` }, holdAfter: 1 };
      if (r.round === 0) return { turn: { tool_calls: ids.map((id) => task(id, "general", id)) } };
      return { turn: { text: "ok" } };
    });
    const p = makeProject(routedConfig(fake, "default_permission_matcher: bypass\n"));
    const r = await startSession(p);
    r.session.submit({ text: "fan out" });
    await waitFor(() => fake!.held() === 4 && r.of("tool_call_completed").length === 1, "four running, one refused");
    const refused = r.of("tool_call_completed")[0]!.result;
    expect(refused.status).toBe("error");
    expect(refused.output).toContain("4 subagents are already running in this session, the most allowed at once (4)");
    fake.release();
    await r.session.idle();
    expect(r.of("subagent_started")).toHaveLength(4);
    const results = parentRequests().at(-1)!.results;
    expect(Object.values(results).filter((t) => t.startsWith("done "))).toHaveLength(4);
  });
});

describe("how a subagent ends", () => {
  test("a provider failure fails the subagent; the parent gets an error result it can read", async () => {
    fake = startRoutingFake((r) => {
      if (fromSubagent(r)) return { status: 400, error: { type: "invalid_request_error", message: "prompt rejected" } };
      if (r.round === 0) return { turn: { tool_calls: [task("call_f", "general", "doomed")] } };
      return { turn: { text: "it failed" } };
    });
    const r = await startSession(makeProject(routedConfig(fake, "default_permission_matcher: bypass\n")));
    r.session.submit({ text: "go" });
    await r.session.idle();
    const done = r.of("subagent_completed")[0]!;
    expect(done).toMatchObject({ name: "general", status: "failed", error: { code: "invalid_request" } });
    const result = r.of("tool_call_completed")[0]!.result;
    expect(result.status).toBe("error");
    expect(result.output).toStartWith("The subagent 'general' failed: provider 'fake' refused the request for model 'big' (model family messages): HTTP 400 invalid_request_error: prompt rejected.");
    expect(r.of("turn_completed")[0]!.stop_reason).toBe("end_turn");
  });

  test("at its max_tool_turns the subagent gives a wrap-up report, marked as possibly incomplete", async () => {
    fake = startRoutingFake((r) => {
      if (fromSubagent(r)) {
        // The wrap-up request forces a text answer (tool_choice none).
        if (r.body.tool_choice?.type === "none") return { turn: { text: "partial findings" } };
        return { turn: { tool_calls: [call(`call_g${r.round}`, "glob", { pattern: "*" })] } };
      }
      if (r.round === 0) return { turn: { tool_calls: [task("call_m", "digger", "dig")] } };
      return { turn: { text: "ok" } };
    });
    const p = makeProject(routedConfig(fake, "default_permission_matcher: bypass\n"), { ".agent/subagents/digger.md": "---\ndescription: Digs\nmax_tool_turns: 2\n---\nDig.\n" });
    const r = await startSession(p);
    r.session.submit({ text: "go" });
    await r.session.idle();
    expect(r.of("subagent_completed")[0]).toMatchObject({ status: "completed", report: "partial findings", tool_turns: 2 });
    expect(parentRequests().at(-1)!.results.call_m).toBe("partial findings\n\n[the subagent used all 2 of its tool round-trips; its report may be incomplete]");
    expect(subagentRequests()).toHaveLength(3);
  });
});

describe("a subagent's permission asks go to the root session's client", () => {
  const writer = () =>
    startRoutingFake((r: SeenRequest) => {
      if (fromSubagent(r)) {
        if (r.round === 0) return { turn: { tool_calls: [call("call_w", "write", { path: "out.txt", content: "from the subagent\n" })] } };
        return { turn: { text: `REPORT: ${r.results.call_w}` } };
      }
      if (r.round === 0) return { turn: { tool_calls: [task("call_t", "general", "write out.txt")] } };
      return { turn: { text: "finished" } };
    });

  /** A session whose subagent's write is waiting on the root client's answer. */
  const delegatedWriteAsked = async () => {
    fake = writer();
    const p = makeProject(routedConfig(fake));
    const r = await startSession(p, { gate: askingForWrites(), interactive: true });
    r.session.submit({ text: "delegate a write" });
    await waitFor(() => r.of("interrogative_opened").length === 1, "the subagent's question");
    return { p, r };
  };

  test("allowed: the ask names the subagent, the answer runs the call, the parent gets the report", async () => {
    const { p, r } = await delegatedWriteAsked();
    const q = r.of("interrogative_opened")[0]!.interrogative;
    const sub = r.of("subagent_started")[0]!;
    expect(q).toMatchObject({ kind: "permission", tool: "write", subagent: { id: sub.subagent_id, name: "general" } });
    expect(r.session.pendingInterrogatives().map((i) => i.id)).toEqual([q.id]);
    expect(r.session.busy).toBe(true);
    r.session.answer(q.id, { decision: "allow_once" });
    await r.session.idle();
    expect(readFileSync(join(p.root, "out.txt"), "utf8")).toBe("from the subagent\n");
    expect(parentRequests().at(-1)!.results.call_t).toStartWith("REPORT: ");
    expect(r.of("subagent_completed")[0]!.status).toBe("completed");
    expect(fake!.violations).toEqual([]);
  });

  test("denied: the subagent reads the user's message and nothing is written", async () => {
    const { p, r } = await delegatedWriteAsked();
    r.session.answer(r.of("interrogative_opened")[0]!.interrogative.id, { decision: "deny", message: "not in this repo" });
    await r.session.idle();
    expect(existsSync(join(p.root, "out.txt"))).toBe(false);
    expect(subagentRequests().at(-1)!.results.call_w).toBe("The user denied this call. The user said: not in this repo");
    expect(parentRequests().at(-1)!.results.call_t).toBe("REPORT: The user denied this call. The user said: not in this repo");
  });

  test("interrupting the parent withdraws the subagent's ask and cancels it", async () => {
    const { p, r } = await delegatedWriteAsked();
    const q = r.of("interrogative_opened")[0]!.interrogative;
    r.session.interrupt();
    await r.session.idle();
    expect(r.of("interrogative_closed")).toEqual([{ type: "interrogative_closed", id: q.id, outcome: "withdrawn" }]);
    expect(r.session.pendingInterrogatives()).toEqual([]);
    let late: unknown;
    try {
      r.session.answer(q.id, { decision: "allow_once" });
    } catch (error) {
      late = error;
    }
    expect(late instanceof InterrogativeError && late.code).toBe("interrogative_withdrawn");
    expect(r.of("subagent_completed")[0]!.status).toBe("cancelled");
    expect(r.of("tool_call_completed").find((e) => e.result.call_id === "call_t")!.result.status).toBe("cancelled");
    expect(r.of("turn_completed")[0]!.stop_reason).toBe("interrupted");
    expect(existsSync(join(p.root, "out.txt"))).toBe(false);
    expect(subagentRequests()).toHaveLength(1);
  });
});

describe("stall watchdog", () => {
  test("a subagent silent past the threshold is marked stalled and its stream reconnects", async () => {
    let subCalls = 0;
    fake = startRoutingFake((r) => {
      if (fromSubagent(r)) {
        subCalls++;
        return subCalls === 1 ? { turn: { text: "never arrives" }, holdAfter: 1 } : { turn: { text: "REPORT after reconnect" } };
      }
      if (r.round === 0) return { turn: { tool_calls: [task("call_s", "general", "slow job")] } };
      return { turn: { text: "ok" } };
    });
    const daemon = "daemon: { provider_stream_idle_timeout_secs: 3600, subagent_stall_threshold_secs: 60, subagent_liveness_watchdog_interval_secs: 10 }\n";
    const p = makeProject(routedConfig(fake, `default_permission_matcher: bypass\n${daemon}`));
    const clock = new FakeClock();
    const r = await startSession(p, { clock });
    r.session.submit({ text: "go" });
    await waitFor(() => fake!.held() === 1, "the subagent's stream to go quiet");
    // 50 s of silence is not yet a stall.
    for (let i = 0; i < 5; i++) {
      clock.advance(10_000);
      await Bun.sleep(2);
    }
    expect(r.of("subagent_stalled")).toEqual([]);
    await until(() => {
      clock.advance(10_000);
      return r.of("subagent_stalled").length === 1;
    }, "the stall report");
    const stalled = r.of("subagent_stalled")[0]!;
    expect(stalled.idle_ms).toBeGreaterThanOrEqual(60_000);
    expect(describeEvent(stalled)).toMatch(/^ {2}general: no activity for \d+ s; reconnecting its stream$/);
    expect(stalled.subagent_id).toBe(r.of("subagent_started")[0]!.subagent_id);
    // The aborted stream is retried after its backoff: the provider sees a second request.
    await until(() => {
      clock.advance(1_000);
      return subCalls === 2;
    }, "the second request");
    await r.session.idle();
    const retry = r.of("subagent_progress").find((e) => e.activity === "retry");
    expect(retry?.text).toContain("subagent_stall_threshold_secs");
    expect(parentRequests().at(-1)!.results.call_s).toBe("REPORT after reconnect");
    expect(r.of("subagent_completed")[0]!.status).toBe("completed");
    expect(fake.violations).toEqual([]);
  });
});
