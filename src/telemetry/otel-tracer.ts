// The real Tracer: OpenTelemetry's official pipeline — the configured SDK Sampler, the SDK's
// RandomIdGenerator and BatchSpanProcessor on the turn's thread, fed with span records (span-record.ts),
// its batches held back while a turn runs (turn-gate.ts);
// the OTLP serializers of @opentelemetry/otlp-transformer (JSON or protobuf) and the exporter of
// @opentelemetry/otlp-exporter-base, sending with Bun's fetch, in the export worker (worker-exporter.ts,
// export-worker.ts). Imported lazily by start.ts, only when a telemetry block is configured: none of it
// is on the startup path of a command without one, and no worker is started without one.
import { ROOT_CONTEXT, SpanKind, TraceFlags } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, RandomIdGenerator, SamplingDecision, TraceIdRatioBasedSampler, type Sampler, type SpanProcessor } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { VERSION } from "../version.ts";
import type { SamplerSetting, TelemetrySettings } from "./settings.ts";
import { SpanRecord, type SpanSink } from "./span-record.ts";
import { errorKind, TURN_SPAN_NAME, type SpanAttributes, type SpanKindName, type TraceSpan, type Tracer } from "./tracer.ts";
import { GatedExporter, TurnGate } from "./turn-gate.ts";
import { WorkerSpanExporter } from "./worker-exporter.ts";

/** How often buffered spans are sent (a daemon's spans reach the collector within about this long). */
const EXPORT_INTERVAL_MS = 2000;
/**
 * Spans per export request, and how many may wait: one request carries a few turns' spans (each request
 * has a fixed cost), and a burst larger than the queue between two exports is dropped, not buffered
 * without bound.
 */
const MAX_EXPORT_BATCH = 2048;
const MAX_QUEUE = 8192;
/**
 * Bounds an export (retries included). A command's last export happens as it exits, so a dead collector
 * may delay `agent exec` by at most the short bound; long-running processes export in the background.
 */
const EXPORT_TIMEOUT_MS = { cli: 1000, daemon: 3000, gateway: 3000 } as const;
/** A stopping daemon or gateway waits at most this long for its last export. */
const SHUTDOWN_WAIT_MS = 1500;

const KINDS: Record<SpanKindName, SpanKind> = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER };

export interface OtelTracerOptions {
  settings: TelemetrySettings;
  /** Which process exports: cli, daemon or gateway (the resource's `agent.role`). */
  role: keyof typeof EXPORT_TIMEOUT_MS;
  /** Values scrubbed from every string attribute by the export worker (configured secrets; the export headers' values are added there). */
  secrets: readonly string[];
  /** Told if the export worker dies (the process goes on; spans are dropped). */
  warn?: (message: string) => void;
}

function sampler(setting: SamplerSetting): Sampler {
  if (setting.type === "always_on") return new AlwaysOnSampler();
  if (setting.type === "always_off") return new AlwaysOffSampler();
  const root = setting.ratio >= 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(setting.ratio);
  return setting.parentBased ? new ParentBasedSampler({ root }) : root;
}

export function createOtelTracer(options: OtelTracerOptions): Tracer {
  const { settings } = options;
  const timeout = EXPORT_TIMEOUT_MS[options.role];
  const resourceAttributes = { [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: VERSION, "agent.role": options.role };
  const instrumentationScope = { name: "agent", version: VERSION };
  const exporter = new WorkerSpanExporter({ init: { type: "init", settings, secrets: options.secrets, timeoutMs: timeout, resource: resourceAttributes, scope: instrumentationScope }, warn: options.warn });
  // Batches wait while a turn runs (turn-gate.ts): the gate counts the sampled turn spans open. A batch
  // waits at most half the export timeout, which the processor counts from the hand-over to the gate.
  const gate = new TurnGate(timeout / 2);
  const processor = new BatchSpanProcessor({
    exporter: new GatedExporter(gate, exporter),
    scheduledDelayMillis: EXPORT_INTERVAL_MS,
    exportTimeoutMillis: timeout,
    maxExportBatchSize: MAX_EXPORT_BATCH,
    maxQueueSize: MAX_QUEUE,
  });
  const decide = sampler(settings.sampler);
  const ids = new RandomIdGenerator();

  const counted: SpanProcessor = {
    onStart: () => {},
    onEnd: (span) => {
      if (span.name === TURN_SPAN_NAME) gate.turnEnded();
      processor.onEnd(span);
    },
    forceFlush: () => processor.forceFlush(),
    shutdown: () => processor.shutdown(),
  };
  const sink: SpanSink = {
    processor: counted,
    // The processor reads a span's resource (to wait for async attributes); the worker encodes its own copy.
    resource: resourceFromAttributes(resourceAttributes),
    instrumentationScope,
  };

  // A child follows its parent's decision, as the SDK's ParentBasedSampler does for a local parent
  // (without building the context object it would read it from); roots, and every span of a sampler
  // that is not parent-based, are decided by the configured official sampler.
  const parentBased = settings.sampler.type === "ratio" && settings.sampler.parentBased;
  const open = (name: string, attributes: SpanAttributes | undefined, kind: SpanKindName, parent: TraceSpan | undefined): SpanRecord => {
    const up = parent instanceof SpanRecord ? parent : undefined;
    const traceId = up ? up.traceId : ids.generateTraceId();
    const spanKind = KINDS[kind];
    const sampled = up && parentBased ? up.sampled : decide.shouldSample(ROOT_CONTEXT, traceId, name, spanKind, attributes ?? {}, []).decision === SamplingDecision.RECORD_AND_SAMPLED;
    // Only a sampled span reaches onEnd, where the gate hears that the turn ended.
    if (sampled && name === TURN_SPAN_NAME) gate.turnStarted();
    return new SpanRecord(sink, traceId, ids.generateSpanId(), sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, up?.traceState, name, spanKind, up, up, attributes);
  };

  let stopped = false;
  return {
    enabled: true,
    start: (name, attributes, kind = "internal", parent) => open(name, attributes, kind, parent),
    run: (name, attributes, fn, kind = "internal", parent) => {
      const span = open(name, attributes, kind, parent);
      const failed = (error: unknown) => {
        span.fail(errorKind(error));
        span.end();
        throw error;
      };
      let result;
      try {
        result = fn(span);
      } catch (error) {
        return failed(error);
      }
      return result.then((value) => {
        span.end();
        return value;
      }, failed);
    },
    // An unreachable or failing collector never fails the command that was traced: spans are dropped.
    // Each export is bounded by the processor's timeout.
    flush: () => processor.forceFlush().catch(() => {}),
    shutdown: async () => {
      if (stopped) return;
      stopped = true;
      let timer: Timer | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(timeout, SHUTDOWN_WAIT_MS))));
      // The processor hands over what it holds (a running turn holds nothing back any more) and waits for
      // the worker's answers and its shutdown ack.
      gate.openForGood();
      await Promise.race([processor.shutdown().catch(() => {}), bound]);
      clearTimeout(timer);
      exporter.terminate();
    },
  };
}
