// The real Tracer: OpenTelemetry's SDK with a batch processor and the OTLP/HTTP exporter (JSON or
// protobuf). Imported lazily by start.ts, only when a telemetry block is configured: the SDK is not on
// the startup path of any command without one.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { redactText } from "../util/redact.ts";
import { VERSION } from "../version.ts";
import type { SamplerSetting, TelemetrySettings } from "./settings.ts";
import { errorKind, type SpanAttributes, type SpanKindName, type TraceSpan, type Tracer } from "./tracer.ts";

/** Attribute strings are names and ids; anything longer is cut (a guard, not a content channel). */
const MAX_ATTRIBUTE_CHARS = 256;
/** Distinct attribute strings remembered as scrubbed (ids make the set grow; it is then started over). */
const SCRUB_CACHE_ENTRIES = 4096;
/** How often buffered spans are sent (a daemon's spans reach the collector within about this long). */
const EXPORT_INTERVAL_MS = 2000;
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
  /** Values scrubbed from every string attribute (configured secrets, the export headers' values). */
  secrets: readonly string[];
}

function sampler(setting: SamplerSetting): Sampler {
  if (setting.type === "always_on") return new AlwaysOnSampler();
  if (setting.type === "always_off") return new AlwaysOffSampler();
  const root = setting.ratio >= 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(setting.ratio);
  return setting.parentBased ? new ParentBasedSampler({ root }) : root;
}

export function createOtelTracer(options: OtelTracerOptions): Tracer {
  const { settings } = options;
  // A header value and, for `Scheme credential` values, the credential alone.
  const headerSecrets = Object.values(settings.headers).flatMap((v) => [v, v.trim().split(/\s+/).at(-1) ?? v]);
  const secrets = [...options.secrets, ...headerSecrets].filter((s) => s.length >= 4);
  const timeout = EXPORT_TIMEOUT_MS[options.role];
  const exporterOptions = { url: settings.tracesUrl, headers: settings.headers, timeoutMillis: timeout };
  const exporter = settings.protocol === "http/json" ? new JsonTraceExporter(exporterOptions) : new ProtobufTraceExporter(exporterOptions);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: VERSION, "agent.role": options.role }),
    sampler: sampler(settings.sampler),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: EXPORT_INTERVAL_MS, exportTimeoutMillis: timeout })],
  });
  const otel = provider.getTracer("agent", VERSION);

  // Attribute strings repeat (model, tool and route names, statuses): each distinct one is scrubbed once.
  const scrubbed = new Map<string, string>();
  const scrub = (value: string): string => {
    let out = scrubbed.get(value);
    if (out === undefined) {
      out = redactText(value.slice(0, MAX_ATTRIBUTE_CHARS), secrets);
      if (scrubbed.size >= SCRUB_CACHE_ENTRIES) scrubbed.clear();
      scrubbed.set(value, out);
    }
    return out;
  };
  const clean = (attributes: SpanAttributes | undefined): Attributes => {
    const out: Attributes = {};
    if (!attributes) return out;
    for (const key in attributes) {
      const value = attributes[key];
      if (value === undefined) continue;
      out[key] = typeof value === "string" ? scrub(value) : value;
    }
    return out;
  };

  const open = (name: string, attributes: SpanAttributes | undefined, kind: SpanKindName, parent: TraceSpan | undefined): Span => {
    const context = parent instanceof SpanHandle ? trace.setSpan(ROOT_CONTEXT, parent.span) : ROOT_CONTEXT;
    return otel.startSpan(name, { kind: KINDS[kind], attributes: clean(attributes) }, context);
  };

  let stopped = false;
  return {
    enabled: true,
    start: (name, attributes, kind = "internal", parent) => new SpanHandle(open(name, attributes, kind, parent), clean),
    run: (name, attributes, fn, kind = "internal", parent) => {
      const span = open(name, attributes, kind, parent);
      const traced = new SpanHandle(span, clean);
      const failed = (error: unknown) => {
        traced.fail(errorKind(error));
        span.end();
        throw error;
      };
      let result;
      try {
        result = fn(traced);
      } catch (error) {
        return failed(error);
      }
      return result.then((value) => {
        span.end();
        return value;
      }, failed);
    },
    // An unreachable or failing collector never fails the command that was traced: spans are dropped.
    flush: () => provider.forceFlush({ timeoutMillis: timeout }).catch(() => {}),
    shutdown: async () => {
      if (stopped) return;
      stopped = true;
      await Promise.race([provider.shutdown().catch(() => {}), Bun.sleep(Math.min(timeout, SHUTDOWN_WAIT_MS))]);
    },
  };
}

/** The TraceSpan over an SDK span (a class: one allocation per span, methods shared). */
class SpanHandle implements TraceSpan {
  constructor(
    readonly span: Span,
    private readonly clean: (attributes: SpanAttributes) => Attributes,
  ) {}

  setAttributes(attributes: SpanAttributes): void {
    this.span.setAttributes(this.clean(attributes));
  }

  fail(kind: string): void {
    this.span.setAttribute("error.type", kind);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: kind });
  }

  end(): void {
    this.span.end();
  }
}
