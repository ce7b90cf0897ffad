// Sessions with the real permission gate (src/permissions): the standard matcher's defaults in a
// headless run, rule files, secret words redacted from tool output, secret files hidden from search.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SessionSetupError } from "../../src/agent/session-setup-error.ts";
import { makeProject, startSession } from "./harness.ts";

const OFFLINE = "providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\n";

function script(calls: string[]): string {
  return `responses:\n  - tool_calls:\n${calls.map((c) => `      - ${c}`).join("\n")}\n  - text: done\n`;
}

describe("sessions with the real permission gate", () => {
  test("standard matcher, no rules, headless: project reads are allowed, writes are denied", async () => {
    const p = makeProject(OFFLINE, {
      "notes.txt": "hello\n",
      "script.yaml": script(['{ name: read, arguments: { path: notes.txt } }', '{ name: write, arguments: { path: out.txt, content: "x" } }']),
    });
    const r = await startSession(p);
    r.session.submit({ text: "go" });
    await r.session.idle();
    const byName = new Map(r.of("tool_call_completed").map((e) => [e.result.name, e.result]));
    expect(byName.get("read")!.status).toBe("completed");
    expect(byName.get("write")!.status).toBe("denied");
    expect(byName.get("write")!.output).toContain("headless");
    expect(existsSync(join(p.root, "out.txt"))).toBe(false);
  });

  test("rule files decide: an allow lets the write run, a deny blocks a read", async () => {
    const p = makeProject(OFFLINE, {
      ".agent/permissions.yaml": "allow:\n  - write(out/**)\ndeny:\n  - read(private/**)\n",
      "private/plan.txt": "secret plan\n",
      "script.yaml": script(['{ name: write, arguments: { path: out/a.txt, content: "x" } }', "{ name: read, arguments: { path: private/plan.txt } }"]),
    });
    const r = await startSession(p);
    r.session.submit({ text: "go" });
    await r.session.idle();
    const byName = new Map(r.of("tool_call_completed").map((e) => [e.result.name, e.result]));
    expect(byName.get("write")!.status).toBe("completed");
    expect(existsSync(join(p.root, "out/a.txt"))).toBe(true);
    expect(byName.get("read")!.status).toBe("denied");
    expect(byName.get("read")!.output).not.toContain("secret plan");
  });

  test("a broken rule file stops the session before it starts, naming file:line", async () => {
    const p = makeProject(OFFLINE, { ".agent/permissions.yaml": "allow:\n  - frobnicate(x)\n", "script.yaml": "responses:\n  - text: hi\n" });
    let error: unknown;
    try {
      await startSession(p);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SessionSetupError);
    expect((error as Error).message).toContain(".agent/permissions.yaml:2");
  });

  test("secret words are redacted from tool output; secret files are left out of glob", async () => {
    const p = makeProject(`${OFFLINE}permissions:\n  secret_words: [hunter2-token]\n  secret_files: ["*.pem"]\n`, {
      "config.txt": "password = hunter2-token\n",
      "server.pem": "-----BEGIN KEY-----\n",
      "script.yaml": script(["{ name: read, arguments: { path: config.txt } }", '{ name: glob, arguments: { pattern: "*" } }']),
    });
    const r = await startSession(p);
    r.session.submit({ text: "go" });
    await r.session.idle();
    const byName = new Map(r.of("tool_call_completed").map((e) => [e.result.name, e.result]));
    expect(byName.get("read")!.output).not.toContain("hunter2-token");
    expect(byName.get("read")!.output).toContain("password = ");
    expect(byName.get("glob")!.output).toContain("config.txt");
    expect(byName.get("glob")!.output).not.toContain("server.pem");
  });
});
