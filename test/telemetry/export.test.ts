// The SDK-backed tracer against a local OTLP/HTTP receiver: both encodings, explicit parents,
// headers and resource, secrets scrubbed from attributes, and the sampler.
import { afterEach, describe, expect, test } from "bun:test";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { startTelemetry } from "../../src/telemetry/start.ts";
import { startOtlpReceiver, type OtlpReceiver } from "./otlp-receiver.ts";

let receiver: OtlpReceiver;
afterEach(() => receiver?.stop());

describe("OTLP/HTTP export", () => {
  for (const protocol of ["http/json", "http/protobuf"] as const) {
    test(`${protocol}: a child span arrives with its parent, attributes, headers and the resource`, async () => {
      receiver = startOtlpReceiver();
      const tracer = await startTelemetry({ block: { endpoint: receiver.url, protocol, headers: { "x-team": "blue" }, service_name: "agent-test" }, env: {}, role: "daemon" });
      expect(tracer.enabled).toBe(true);
      const before = BigInt(Date.now()) * 1_000_000n;
      await tracer.run("outer", { "agent.turn.id": "trn_1" }, async (outer) => {
        await Bun.sleep(1);
        await tracer.run("inner", { count: 3, ok: true }, async () => {}, "internal", outer);
        outer.setAttributes({ "agent.turn.stop_reason": "end_turn" });
      });
      const after = BigInt(Date.now() + 1) * 1_000_000n;
      await tracer.shutdown();
      const spans = receiver.spans();
      const outer = spans.find((s) => s.name === "outer")!;
      const inner = spans.find((s) => s.name === "inner")!;
      // Wall-clock times, the child inside its parent.
      expect(outer.startNanos).toBeGreaterThanOrEqual(before);
      expect(outer.startNanos).toBeLessThanOrEqual(inner.startNanos);
      expect(inner.startNanos).toBeLessThanOrEqual(inner.endNanos);
      expect(inner.endNanos).toBeLessThanOrEqual(outer.endNanos);
      expect(outer.endNanos).toBeLessThanOrEqual(after);
      expect(inner.kind).toBe(1); // internal
      expect(outer.attributes).toMatchObject({ "agent.turn.id": "trn_1", "agent.turn.stop_reason": "end_turn" });
      expect(inner.attributes).toMatchObject({ count: 3, ok: true });
      expect(inner.parentSpanId).toBe(outer.spanId);
      expect(inner.traceId).toBe(outer.traceId);
      expect(outer.resource).toMatchObject({ "service.name": "agent-test", "agent.role": "daemon" });
      const request = receiver.requests[0]!;
      expect(request.path).toBe("/v1/traces");
      expect(request.contentType).toContain(protocol === "http/json" ? "application/json" : "application/x-protobuf");
      expect(request.headers["x-team"]).toBe("blue");
    });
  }

  test("a throw marks the span failed with the error's kind and is rethrown", async () => {
    receiver = startOtlpReceiver();
    const tracer = await startTelemetry({ block: { endpoint: receiver.url, protocol: "http/json" }, env: {}, role: "cli" });
    const failure = Object.assign(new Error("the prompt said: launch codes 1234"), { code: "rate_limited" });
    await expect(tracer.run("fails", {}, async () => Promise.reject(failure))).rejects.toBe(failure);
    await tracer.shutdown();
    const span = receiver.spans().find((s) => s.name === "fails")!;
    expect(span.statusCode).toBe(2);
    expect(span.attributes["error.type"]).toBe("rate_limited");
    // The message (which can quote content) never travels.
    expect(new TextDecoder().decode(receiver.requests[0]!.body)).not.toContain("launch codes");
  });

  test("configured secrets and header values never reach an attribute", async () => {
    receiver = startOtlpReceiver();
    const tracer = await startTelemetry({ block: { endpoint: receiver.url, protocol: "http/json", headers: { authorization: "Bearer otlp-ingest-token-123" } }, env: {}, role: "cli", secrets: ["hunter2-secret"] });
    await tracer.run("s", { a: "value hunter2-secret here", b: "otlp-ingest-token-123" }, async () => {});
    await tracer.shutdown();
    const body = new TextDecoder().decode(receiver.requests[0]!.body);
    expect(body).not.toContain("hunter2-secret");
    expect(body).not.toContain("otlp-ingest-token-123");
    expect(receiver.spans()[0]!.attributes.a).toBe("value [redacted] here");
  });

  test("sample_ratio 0 exports nothing; OTEL_TRACES_SAMPLER=always_on overrides it", async () => {
    receiver = startOtlpReceiver();
    const off = await startTelemetry({ block: { endpoint: receiver.url, protocol: "http/json", sample_ratio: 0 }, env: {}, role: "cli" });
    await off.run("dropped", {}, async () => {});
    await off.shutdown();
    expect(receiver.spans()).toHaveLength(0);
    const on = await startTelemetry({ block: { endpoint: receiver.url, protocol: "http/json", sample_ratio: 0 }, env: { OTEL_TRACES_SAMPLER: "always_on" }, role: "cli" });
    await on.run("kept", {}, async () => {});
    await on.shutdown();
    expect(receiver.spans().map((s) => s.name)).toEqual(["kept"]);
  });

  test("sample_ratio keeps or drops whole traces: a child follows its root", async () => {
    receiver = startOtlpReceiver();
    const tracer = await startTelemetry({ block: { endpoint: receiver.url, protocol: "http/json", sample_ratio: 0.5 }, env: {}, role: "cli" });
    for (let i = 0; i < 40; i++) await tracer.run(`root-${i}`, {}, async (root) => tracer.run(`child-${i}`, {}, async () => {}, "internal", root));
    await tracer.shutdown();
    const names = new Set(receiver.spans().map((s) => s.name));
    const kept = [...Array(40).keys()].filter((i) => names.has(`root-${i}`));
    // 40 traces at one half: all or none kept happens with odds of 2^-39.
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(40);
    for (let i = 0; i < 40; i++) expect(names.has(`child-${i}`)).toBe(names.has(`root-${i}`));
  });

  test("OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME override the block", async () => {
    receiver = startOtlpReceiver();
    const unused = startOtlpReceiver();
    try {
      const tracer = await startTelemetry({ block: { endpoint: unused.url, protocol: "http/json", service_name: "from-block" }, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "from-env" }, role: "cli" });
      await tracer.run("s", {}, async () => {});
      await tracer.shutdown();
      expect(unused.requests).toHaveLength(0);
      expect(receiver.spans()[0]!.resource["service.name"]).toBe("from-env");
    } finally {
      unused.stop();
    }
  });
});

test("span records are encoded exactly as the SDK's own spans would be (ids and times aside)", async () => {
  // The same two spans through the SDK's Tracer/Span classes, encoded by the official serializer...
  const sdkSpans: ReadableSpan[] = [];
  const provider = new TracerProvider({ spanProcessors: [{ onStart() {}, onEnd: (span) => void sdkSpans.push(span), forceFlush: async () => {}, shutdown: async () => {} }] });
  const sdk = provider.getTracer("agent");
  const parent = sdk.startSpan("chat", { kind: SpanKind.CLIENT, attributes: { "gen_ai.provider.name": "local", "gen_ai.usage.input_tokens": 3 } }, ROOT_CONTEXT);
  const child = sdk.startSpan("execute_tool write", { attributes: { ok: true } }, trace.setSpan(ROOT_CONTEXT, parent));
  child.setAttribute("error.type", "tool_error");
  child.setStatus({ code: SpanStatusCode.ERROR, message: "tool_error" });
  child.end();
  parent.end();
  const expected = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(sdkSpans)!);
  // ...and through our tracer to the receiver.
  receiver = startOtlpReceiver();
  const tracer = await startTelemetry({ block: { endpoint: receiver.url, protocol: "http/json" }, env: {}, role: "cli" });
  const ours = tracer.start("chat", { "gen_ai.provider.name": "local", "gen_ai.usage.input_tokens": 3 }, "client");
  const tool = tracer.start("execute_tool write", { ok: true }, "internal", ours);
  tool.fail("tool_error");
  tool.end();
  ours.end();
  await tracer.shutdown();
  const spansOf = (body: string) =>
    (JSON.parse(body).resourceSpans[0].scopeSpans[0].spans as Record<string, unknown>[]).map((s) => ({ ...s, traceId: 1, spanId: 1, parentSpanId: s.parentSpanId ? 1 : 0, startTimeUnixNano: 1, endTimeUnixNano: 1 }));
  expect(spansOf(new TextDecoder().decode(receiver.requests[0]!.body))).toEqual(spansOf(expected));
});

test("a collector answering 503 with Retry-After gets the spans again; a 400 drops them without failing anything", async () => {
  receiver = startOtlpReceiver({ failFirst: [503] });
  const tracer = await startTelemetry({ block: { endpoint: receiver.url, protocol: "http/json" }, env: {}, role: "daemon" });
  await tracer.run("retried", {}, async () => {});
  await tracer.flush();
  expect(receiver.spans().map((s) => s.name)).toEqual(["retried"]);
  await tracer.shutdown();

  const refusing = startOtlpReceiver({ failFirst: [400] });
  try {
    const other = await startTelemetry({ block: { endpoint: refusing.url, protocol: "http/json" }, env: {}, role: "daemon" });
    expect(await other.run("refused", {}, async () => 7)).toBe(7);
    await other.flush();
    await other.run("later", {}, async () => {});
    await other.shutdown();
    expect(refusing.spans().map((s) => s.name)).toEqual(["later"]);
  } finally {
    refusing.stop();
  }
});

test("an unreachable collector never fails the traced work, flush or shutdown", async () => {
  const dead = startOtlpReceiver();
  const url = dead.url;
  dead.stop();
  const tracer = await startTelemetry({ block: { endpoint: url, protocol: "http/json" }, env: {}, role: "cli" });
  expect(await tracer.run("s", {}, async () => 42)).toBe(42);
  await tracer.flush();
  await tracer.shutdown();
});
