// Trace export from the compiled binary: the export worker is its own module inside the executable
// (build.ts), so a daemon and `agent exec` with a global telemetry block must reach a local OTLP/HTTP
// receiver from dist/agent, and a daemon stopped right after a turn must still deliver that turn's spans.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { promptAndWait, sandbox, spawnDemoDaemon } from "../telemetry/demo-daemon.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../telemetry/otlp-receiver.ts";

const INGEST_KEY = "otlp-ingest-key-e2e-5678";

let receiver: OtlpReceiver;
afterEach(() => receiver?.stop());
beforeAll(() => ensureBinary(), 120_000);



describe("trace export from the compiled binary", () => {
  test("a daemon stopped right after a turn delivers the turn's and the routes' spans, with the configured headers", async () => {
    receiver = startOtlpReceiver();
    const box = sandbox(`telemetry: { endpoint: "${receiver.url}", headers: { x-api-key: "${INGEST_KEY}" } }\n`);
    const { proc, url } = await spawnDemoDaemon([BINARY], box);
    try {
      await promptAndWait(url, "hello from the binary");
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
