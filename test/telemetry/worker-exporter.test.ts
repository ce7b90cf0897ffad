// The turn's thread's side of the export worker when the worker misbehaves: a worker that dies drops its
// batch and every later one with one warning that quotes nothing from it, and the process goes on; a
// worker that never answers is ended by terminate, its batches counted as failed.
import { expect, test } from "bun:test";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { WorkerSpanExporter } from "../../src/telemetry/worker-exporter.ts";
import { SpanRecord, type SpanSink } from "../../src/telemetry/span-record.ts";

const BROKEN = new URL("./broken-export-worker.ts", import.meta.url).href;
const HEADER_SECRET = "otlp-ingest-secret-9876";

function exporter(serviceName: string, warnings: string[]): WorkerSpanExporter {
  const settings = { tracesUrl: "http://127.0.0.1:9/v1/traces", protocol: "http/json" as const, headers: { authorization: `Bearer ${HEADER_SECRET}` }, serviceName, sampler: { type: "always_on" as const } };
  return new WorkerSpanExporter({ init: { type: "init", settings, secrets: [], timeoutMs: 1000, resource: { "service.name": serviceName }, scope: { name: "agent", version: "0" } }, warn: (m) => warnings.push(m), workerUrl: BROKEN });
}

function spans(n: number): ReadableSpan[] {
  const sink: SpanSink = { processor: { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} }, resource: resourceFromAttributes({}), instrumentationScope: { name: "agent" } };
  return Array.from({ length: n }, (_, i) => {
    const span = new SpanRecord(sink, "0af7651916cd43dd8448eb211c80319c", `b7ad6b71692033${String(i).padStart(2, "0")}`, 1, undefined, `span-${i}`, 0, undefined, undefined, { n: i });
    span.end();
    return span;
  });
}

const exported = (target: WorkerSpanExporter, batch: ReadableSpan[]) => new Promise<number>((resolve) => target.export(batch, (result) => resolve(result.code)));

test("a worker that dies fails its batch and every later one, warns once without its error text, and the process goes on", async () => {
  const warnings: string[] = [];
  const broken = exporter("crashes", warnings);
  expect(await exported(broken, spans(3))).toBe(1);
  expect(await exported(broken, spans(1))).toBe(1);
  await broken.shutdown();
  expect(warnings).toEqual(["telemetry: the trace export worker stopped unexpectedly; spans are no longer exported"]);

  // Through the official processor, as the tracer uses it: flush and shutdown settle, nothing throws.
  const processor = new BatchSpanProcessor({ exporter: exporter("crashes", warnings), scheduledDelayMillis: 60_000 });
  for (const span of spans(2)) processor.onEnd(span);
  await expect(processor.forceFlush()).rejects.toBeDefined();
  await processor.shutdown();
  expect(warnings).toHaveLength(2);
  expect(warnings.join("\n")).not.toContain(HEADER_SECRET);
});

test("a worker that never answers: terminate fails what waits for it, later exports fail at once", async () => {
  const warnings: string[] = [];
  const silent = exporter("silent", warnings);
  const waiting = exported(silent, spans(2));
  silent.terminate();
  expect(await waiting).toBe(1);
  expect(await exported(silent, spans(1))).toBe(1);
  await silent.shutdown();
  // Ended on purpose: no warning.
  expect(warnings).toEqual([]);
});
