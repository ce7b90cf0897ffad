// The export worker: the official exporter pipeline (what @opentelemetry/exporter-trace-otlp-http and
// -proto assemble: OTLPExporterBase, the network export delegate, the otlp-transformer serializer) with
// Bun's fetch as its transport, on its own thread, as the OpenTelemetry Java SDK's batch processor
// exports from its own thread. The turn's thread records spans and hands batches over (export-wire.ts);
// encoding and the request, two thirds of export's cost, run here. Started by worker-exporter.ts; inside
// the compiled binary this module is its own entrypoint (build.ts).
import { createOtlpNetworkExportDelegate, ExporterMetrics, OTLPExporterBase } from "@opentelemetry/otlp-exporter-base";
import { JsonTraceSerializer, ProtobufTraceSerializer, TraceExporterMetricsHelper } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { unpackSpans, type FromWorker, type ToWorker } from "./export-wire.ts";
import { createFetchTransport } from "./otlp-fetch-transport.ts";
import { createScrubber, scrubbedValues } from "./scrub.ts";
import type { TelemetrySettings } from "./settings.ts";

declare const self: Worker;

/** ExportResultCode.SUCCESS of @opentelemetry/core. */
const SUCCESS = 0;

function otlpExporter(settings: TelemetrySettings, timeoutMillis: number): OTLPExporterBase<ReadableSpan[]> {
  const json = settings.protocol === "http/json";
  const transport = createFetchTransport({ url: settings.tracesUrl, headers: settings.headers, contentType: json ? "application/json" : "application/x-protobuf" });
  const metrics = new ExporterMetrics<ReadableSpan[]>({ componentType: "otlp_http_span_exporter", metricsHelper: TraceExporterMetricsHelper, url: settings.tracesUrl, meterProvider: undefined, responseAttributesFromError: () => ({}) });
  const options = { timeoutMillis, concurrencyLimit: 4, compression: "none" as const };
  return new OTLPExporterBase(createOtlpNetworkExportDelegate(options, json ? JsonTraceSerializer : ProtobufTraceSerializer, metrics, transport));
}

let exporter: OTLPExporterBase<ReadableSpan[]>;
let resource: ReturnType<typeof resourceFromAttributes>;
let scope: ReadableSpan["instrumentationScope"];
let scrub: (value: string) => string;

const answer = (id: number, ok: boolean) => self.postMessage({ id, ok } satisfies FromWorker);

// Messages arrive in order, so init always comes first. A throw here ends the worker: the turn's thread
// then drops spans and warns once (worker-exporter.ts).
self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === "init") {
    exporter = otlpExporter(message.settings, message.timeoutMs);
    resource = resourceFromAttributes(message.resource);
    scope = message.scope;
    scrub = createScrubber(scrubbedValues(message.secrets, message.settings.headers));
  } else if (message.type === "export") {
    exporter.export(unpackSpans(message.spans, resource, scope, scrub), (result) => answer(message.id, result.code === SUCCESS));
  } else {
    exporter.shutdown().then(
      () => answer(message.id, true),
      () => answer(message.id, false),
    );
  }
};
