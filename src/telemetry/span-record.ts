// A span recorded for the official OpenTelemetry pipeline: the ReadableSpan that the SDK's
// BatchSpanProcessor queues and the official OTLP serializers encode, written directly instead of
// through the SDK's Tracer/Span classes. Measured under Bun inside real turns, those classes cost several
// times what the span is worth (attribute maps validated and copied two or three times, a context object
// per child, clock conversions, self-metrics closures); this keeps only what the export needs: ids from
// the SDK's RandomIdGenerator, the configured official Sampler's decision, times from the monotonic
// clock anchored to the wall clock once per trace (as the SDK's anchored clock does), scrubbed
// attributes and the status.
import { ROOT_CONTEXT, SpanStatusCode, TraceFlags, trace, type Attributes, type Context, type HrTime, type SpanContext, type SpanKind, type SpanStatus } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, SpanProcessor } from "@opentelemetry/sdk-trace";
import type { SpanAttributes, TraceSpan } from "./tracer.ts";

/** The SDK's default attribute count limit: more attributes on one span are counted as dropped. */
const ATTRIBUTE_COUNT_LIMIT = 128;
const NO_LINKS: ReadableSpan["links"] = Object.freeze([]) as unknown as ReadableSpan["links"];
const NO_EVENTS: ReadableSpan["events"] = Object.freeze([]) as unknown as ReadableSpan["events"];
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

/** Milliseconds since the epoch (fractional) as OpenTelemetry's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  let seconds = Math.trunc(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * 1e6);
  if (nanos >= 1e9) {
    seconds += 1;
    nanos -= 1e9;
  }
  return [seconds, nanos];
}

/** What every span of one tracer shares. */
export interface SpanSink {
  processor: SpanProcessor;
  resource: Resource;
  instrumentationScope: { name: string; version?: string };
  /** Attribute strings pass through this (truncation and secret scrubbing). */
  scrub(value: string): string;
}

export class SpanRecord implements ReadableSpan, TraceSpan {
  readonly attributes: Attributes = {};
  readonly links = NO_LINKS;
  readonly events = NO_EVENTS;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  droppedAttributesCount = 0;
  status: SpanStatus = UNSET;
  readonly startTime: HrTime;
  endTime: HrTime = [0, 0];
  duration: HrTime = [-1, -1];
  ended = false;
  private attributeCount = 0;
  /**
   * Wall clock minus monotonic clock, taken by the trace's root and inherited by its spans, so a
   * child's times sit inside its parent's (a wall-clock reading per span would not: it has whole
   * milliseconds) and a clock step never tears one trace apart.
   */
  readonly anchor: number;
  private readonly startPerf: number;
  /** A context holding this span's context, made once for the sampler of its first child. */
  private asParent: Context | undefined;

  constructor(
    private readonly sink: SpanSink,
    private readonly context: SpanContext,
    readonly name: string,
    readonly kind: SpanKind,
    readonly parentSpanContext: SpanContext | undefined,
    /** False for a span the sampler dropped: it still carries ids and flags for its children. */
    private readonly recording: boolean,
    parent: SpanRecord | undefined,
  ) {
    this.startPerf = performance.now();
    this.anchor = parent ? parent.anchor : Date.now() - this.startPerf;
    this.startTime = hrTime(this.anchor + this.startPerf);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  get resource(): Resource {
    return this.sink.resource;
  }

  get instrumentationScope(): { name: string; version?: string } {
    return this.sink.instrumentationScope;
  }

  get sampled(): boolean {
    return (this.context.traceFlags & TraceFlags.SAMPLED) !== 0;
  }

  /** The context a sampler sees for a child of this span. */
  parentContext(): Context {
    return (this.asParent ??= trace.setSpanContext(ROOT_CONTEXT, this.context));
  }

  setAttributes(attributes: SpanAttributes | undefined): void {
    if (!this.recording || this.ended || !attributes) return;
    const out = this.attributes;
    for (const key in attributes) {
      const value = attributes[key];
      if (value === undefined || key.length === 0) continue;
      if (!(key in out)) {
        if (this.attributeCount >= ATTRIBUTE_COUNT_LIMIT) {
          this.droppedAttributesCount++;
          continue;
        }
        this.attributeCount++;
      }
      out[key] = typeof value === "string" ? this.sink.scrub(value) : value;
    }
  }

  fail(kind: string): void {
    if (!this.recording || this.ended) return;
    this.setAttributes({ "error.type": kind });
    this.status = { code: SpanStatusCode.ERROR, message: this.sink.scrub(kind) };
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.recording) return;
    const now = performance.now();
    this.endTime = hrTime(this.anchor + now);
    this.duration = hrTime(now - this.startPerf);
    this.sink.processor.onEnd(this);
  }
}
