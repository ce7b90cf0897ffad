// Trace export from the compiled binary: the export worker is its own module inside the executable
// (build.ts), so a daemon and `agent exec` with a global telemetry block must reach a local OTLP/HTTP
// receiver from dist/agent, and a daemon stopped right after a turn must still deliver that turn's spans.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../telemetry/otlp-receiver.ts";

const TOKEN = "dmn_telemetry-e2e-token-0123456789abcdefghijk";
const INGEST_KEY = "otlp-ingest-key-e2e-5678";

let receiver: OtlpReceiver;
afterEach(() => receiver?.stop());
beforeAll(() => ensureBinary(), 120_000);

function sandbox(globalConfig: string) {
  const base = mkdtempSync(join(tmpdir(), "agent-telemetry-e2e-"));
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base, XDG_CONFIG_HOME: join(base, "config"), XDG_DATA_HOME: join(base, "data") };
  mkdirSync(join(base, "config", "agent"), { recursive: true });
  writeFileSync(join(base, "config", "agent", "config.yaml"), globalConfig);
  const project = join(base, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  return { base, env, project };
}

const authed = (url: string, init: RequestInit = {}) => fetch(url, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", ...(init.headers ?? {}) } });

describe("trace export from the compiled binary", () => {
  test("a daemon stopped right after a turn delivers the turn's and the routes' spans, with the configured headers", async () => {
    receiver = startOtlpReceiver();
    const box = sandbox(`telemetry: { endpoint: "${receiver.url}", headers: { x-api-key: "${INGEST_KEY}" } }\n`);
    const credDir = join(box.base, "cred");
    mkdirSync(credDir, { mode: 0o700 });
    const cred = join(credDir, "credential.json");
    writeFileSync(cred, JSON.stringify({ token: TOKEN }));
    chmodSync(cred, 0o600);
    const proc = Bun.spawn([BINARY, "daemon", "--session-dir", join(box.base, "session"), "--credential-file", cred, "--project", box.project, "--demo"], { cwd: box.project, env: box.env, stdout: "pipe", stderr: "pipe" });
    const reader = proc.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`daemon exited early: ${await new Response(proc.stderr).text()}`);
      text += new TextDecoder().decode(value);
    }
    const url = `http://127.0.0.1:${(JSON.parse(text.split("\n")[0]!) as { port: number }).port}`;
    try {
      expect((await authed(`${url}/prompt`, { method: "POST", body: JSON.stringify({ text: "hello from the binary" }) })).status).toBe(202);
      for (;;) {
        const sync = (await (await authed(`${url}/sync`)).json()) as { turn: { busy: boolean; queue: unknown[] } };
        if (!sync.turn.busy && sync.turn.queue.length === 0) break;
        await Bun.sleep(20);
      }
    } finally {
      // Stopped at once: the 2-second export has not run, so only the flush on stop can deliver the spans.
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    const stderr = await new Response(proc.stderr).text();
    expect(stderr).not.toContain("export worker");
    const spans = receiver.spans();
    const turn = spans.find((s) => s.name === "agent.turn")!;
    expect(turn).toBeDefined();
    expect(turn.resource["agent.role"]).toBe("daemon");
    expect(spans.some((s) => s.name === "chat" && s.traceId === turn.traceId && s.parentSpanId === turn.spanId)).toBe(true);
    expect(spans.some((s) => s.name === "POST /prompt" && s.attributes["http.response.status_code"] === 202)).toBe(true);
    expect(receiver.requests.every((r) => r.headers["x-api-key"] === INGEST_KEY)).toBe(true);
    expect(stderr).not.toContain(INGEST_KEY);
  }, 60_000);

  test("agent exec flushes its spans through the worker before it exits", async () => {
    receiver = startOtlpReceiver();
    const box = sandbox(`telemetry: { endpoint: "${receiver.url}", protocol: http/protobuf }\n`);
    const proc = Bun.spawn([BINARY, "exec", "--demo", "say hello"], { cwd: box.project, env: box.env, stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(0);
    expect(await new Response(proc.stderr).text()).not.toContain("export worker");
    const names = receiver.spans().map((s) => s.name);
    expect(names).toContain("agent.turn");
    expect(names).toContain("chat");
    expect(receiver.requests[0]!.contentType).toContain("application/x-protobuf");
    expect(receiver.spans()[0]!.resource["agent.role"]).toBe("cli");
  }, 60_000);
});
