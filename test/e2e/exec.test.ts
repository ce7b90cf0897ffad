// `agent exec` from the compiled binary, as a script would run it: JSON event lines in order, the plain
// answer on stdout, the no-provider message, the offline demo, and the saved session.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";

const SCRIPT = `responses:
  - text: "Writing it."
    tool_calls:
      - { name: write, arguments: { path: out.txt, content: "made by exec\\n" } }
  - text: "Wrote out.txt."
`;

function project(config: string | null): { root: string; env: Record<string, string> } {
  const base = mkdtempSync(join(tmpdir(), "agent-exec-e2e-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  if (config !== null) {
    mkdirSync(join(root, ".agent"));
    writeFileSync(join(root, ".agent", "config.yaml"), config);
    // exec cannot ask, so the write the script makes needs a rule: the user's own (a project's allow rules wait for trust).
    mkdirSync(join(base, "config", "agent"), { recursive: true });
    writeFileSync(join(base, "config", "agent", "permissions.yaml"), "allow:\n  - write(out.txt)\n");
  }
  writeFileSync(join(root, "script.yaml"), SCRIPT);
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  return { root, env };
}

function run(args: string[], p: { root: string; env: Record<string, string> }) {
  const proc = Bun.spawnSync([BINARY, ...args], { cwd: p.root, env: p.env, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

const SCRIPTED = "providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\n";

beforeAll(() => ensureBinary(), 120_000);

describe("agent exec (compiled binary)", () => {
  test("--json prints one valid JSON event per line, in order, and the session is saved", () => {
    const p = project(SCRIPTED);
    const r = run(["exec", "--json", "write the file"], p);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const events = r.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; session_id?: string; stop_reason?: string });
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("session");
    expect(types.slice(-2)).toEqual(["turn_completed", "cost"]); // the run's price closes the stream (null: the demo has none)
    expect(events.at(-1)).toEqual({ type: "cost", currency: "USD", usd: null, priced_messages: 0, unpriced_messages: 2 } as never);
    const order = ["turn_started", "user_message", "assistant_message_started", "part_completed", "assistant_message_completed", "tool_call_started", "tool_call_completed"];
    for (let i = 1; i < order.length; i++) expect(types.indexOf(order[i - 1]!)).toBeLessThan(types.indexOf(order[i]!));
    expect(types).not.toContain("part_delta");
    expect(events.at(-2)!.stop_reason).toBe("end_turn");
    expect(existsSync(join(p.root, "out.txt"))).toBe(true);
    const id = events[0]!.session_id!;
    expect(readdirSync(join(p.env.XDG_DATA_HOME!, "agent", "sessions"))).toEqual([id]);
  });

  test("plain mode: the answer on stdout, progress on stderr", () => {
    const p = project(SCRIPTED);
    const r = run(["exec", "write the file"], p);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Wrote out.txt.\n");
    expect(r.stderr).toContain("→ write");
  });

  test("no provider configured: a plain message saying how to configure one, exit 1", () => {
    const p = project(null);
    const r = run(["exec", "hi"], p);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("No model provider is configured");
    expect(r.stderr).toContain("custom_b_compatible");
    expect(r.stderr).toContain("--demo");
  });

  test("--demo runs the offline scripted provider, labelled as a demo", () => {
    const p = project(null);
    const r = run(["exec", "--demo", "hello"], p);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("offline demo");
    expect(r.stdout).toContain("run `agent setup`");
  });

  test("an unknown model is an error naming the configured ones", () => {
    const p = project(SCRIPTED);
    const r = run(["exec", "--model", "nope", "hi"], p);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown model 'nope'; configured models: test-scripted");
  });
});
