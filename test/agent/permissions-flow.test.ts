// The engine side of permissions: an `ask` becomes an interrogative in an interactive session and a
// denial in a headless one; answers allow, always-allow or deny; a cancelled turn withdraws the question.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PermissionDecision, PermissionGate, PermissionRequest } from "../../src/agent/permission.ts";
import { InterrogativeError } from "../../src/agent/session-api.ts";
import { makeProject, scriptedConfig, startSession, waitFor } from "./harness.ts";

const WRITE_TURN = `responses:
  - tool_calls:
      - { name: write, arguments: { path: out.txt, content: "x" } }
  - text: done
  - tool_calls:
      - { name: write, arguments: { path: out2.txt, content: "y" } }
  - text: done again
`;

function askingGate(): PermissionGate & { always: string[]; answers: boolean[] } {
  const always: string[] = [];
  const answers: boolean[] = [];
  return {
    always,
    answers,
    async check(req: PermissionRequest): Promise<PermissionDecision> {
      if (always.includes(req.tool)) return { kind: "allow", rule: `${req.tool}(*)` };
      return { kind: "ask", reason: `no rule allows ${req.tool}`, suggestedRule: `${req.tool}(*)` };
    },
    async allowAlways(req) {
      always.push(req.tool);
      return `${req.tool}(*)`;
    },
    recordAnswer(_req, allowed) {
      answers.push(allowed);
    },
  };
}

describe("permission asks", () => {
  test("headless: an ask is a denial the model can read, and nothing runs", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": WRITE_TURN });
    const r = await startSession(p, { gate: askingGate(), interactive: false });
    r.session.submit({ text: "write" });
    await r.session.idle();
    const result = r.of("tool_call_completed")[0]!.result;
    expect(result.status).toBe("denied");
    expect(result.output).toContain("nobody can answer in a headless run");
    expect(existsSync(join(p.root, "out.txt"))).toBe(false);
    expect(r.of("interrogative_opened")).toEqual([]);
  });

  test("interactive: allow_always runs the call and the next one without asking", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": WRITE_TURN });
    const gate = askingGate();
    const r = await startSession(p, { gate, interactive: true });
    r.session.submit({ text: "write" });
    await waitFor(() => r.of("interrogative_opened").length === 1, "the question");
    const q = r.of("interrogative_opened")[0]!.interrogative;
    expect(q.kind === "permission" && q.tool).toBe("write");
    // The question carries the rule "allow always" will write, for the client to show.
    expect(q.kind === "permission" && q.suggested_rule).toBe("write(*)");
    expect(r.session.pendingInterrogatives().map((i) => i.id)).toEqual([q.id]);
    r.session.answer(q.id, { decision: "allow_always", scope: "session" });
    await r.session.idle();
    expect(existsSync(join(p.root, "out.txt"))).toBe(true);
    r.session.submit({ text: "write more" });
    await r.session.idle();
    expect(existsSync(join(p.root, "out2.txt"))).toBe(true);
    expect(r.of("interrogative_opened")).toHaveLength(1);
    expect(gate.answers).toEqual([true]);
    expect(() => r.session.answer(q.id, { decision: "allow_once" })).toThrow(InterrogativeError);
  });

  test("interactive: deny feeds the user's message back to the model", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": WRITE_TURN });
    const r = await startSession(p, { gate: askingGate(), interactive: true });
    r.session.submit({ text: "write" });
    await waitFor(() => r.of("interrogative_opened").length === 1, "the question");
    r.session.answer(r.of("interrogative_opened")[0]!.interrogative.id, { decision: "deny", message: "use a temp dir" });
    await r.session.idle();
    const result = r.of("tool_call_completed")[0]!.result;
    expect(result.status).toBe("denied");
    expect(result.output).toContain("The user said: use a temp dir");
  });

  test("an interrupt withdraws a pending question; a late answer is a typed error", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": WRITE_TURN });
    const r = await startSession(p, { gate: askingGate(), interactive: true });
    r.session.submit({ text: "write" });
    await waitFor(() => r.of("interrogative_opened").length === 1, "the question");
    const id = r.of("interrogative_opened")[0]!.interrogative.id;
    r.session.interrupt();
    await r.session.idle();
    expect(r.of("interrogative_closed")).toEqual([{ type: "interrogative_closed", id, outcome: "withdrawn" }]);
    expect(r.of("tool_call_completed")[0]!.result.status).toBe("cancelled");
    let code = "";
    try {
      r.session.answer(id, { decision: "allow_once" });
    } catch (error) {
      code = (error as InterrogativeError).code;
    }
    expect(code).toBe("interrogative_withdrawn");
    expect(() => r.session.answer("ask_unknown", { decision: "allow_once" })).toThrow("no pending question");
  });
});
