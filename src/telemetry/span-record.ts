// A span recorded for the official OpenTelemetry pipeline: the ReadableSpan that the SDK's
// BatchSpanProcessor queues (and export-wire.ts hands to the export worker), written directly instead of
// through the SDK's Tracer/Span classes. Measured under Bun inside real turns, those classes cost several
// times what the span is worth (attribute maps validated and copied two or three times, a context object
// per child, clock conversions, self-metrics closures). A record holds only what the export reads; its
// times are kept as clock readings and turned into OpenTelemetry's [seconds, nanoseconds] when encoded.
import { SpanStatusCode, TraceFlags, type Attributes, type HrTime, type SpanContext, type SpanKind, type SpanStatus, type TraceState } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, SpanProcessor } from "@opentelemetry/sdk-trace";
import { hrTime } from "./export-wire.ts";
import type { SpanAttributes, TraceSpan } from "./tracer.ts";

/** The SDK's default attribute count limit: more attributes on one span are counted as dropped. */
const ATTRIBUTE_COUNT_LIMIT = 128;
const NO_LINKS: ReadableSpan["links"] = Object.freeze([]) as unknown as ReadableSpan["links"];
const NO_EVENTS: ReadableSpan["events"] = Object.freeze([]) as unknown as ReadableSpan["events"];
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

/** What every span of one tracer shares. */
export interface SpanSink {
  processor: SpanProcessor;
  resource: Resource;
  instrumentationScope: { name: string; version?: string };
}

/**
 * How many attributes `attributes` holds when it can be kept as the span's own map (no undefined
 * values, within the limit), else -1. Strings are cut and scrubbed by the export worker (scrub.ts).
 */
function adoptable(attributes: SpanAttributes): number {
  let count = 0;
  for (const key in attributes) {
    if (attributes[key] === undefined || key.length === 0 || ++count > ATTRIBUTE_COUNT_LIMIT) return -1;
  }
  return count;
}

/**
 * A record is also its own SpanContext (ids, flags, trace state), and a child's parent context is its
 * parent record: no context object per span.
 */
export class SpanRecord implements ReadableSpan, TraceSpan, SpanContext {
  attributes: Attributes;
  status: SpanStatus = UNSET;
  droppedAttributesCount = 0;
  ended = false;
  private attributeCount = 0;
  private endPerf = -1;
  /**
   * Wall clock minus monotonic clock, taken by the trace's root and inherited by its spans, so a
   * child's times sit inside its parent's (a wall-clock reading per span would not: it has whole
   * milliseconds) and a clock step never tears one trace apart (the SDK's anchored clock does the same).
   */
  readonly anchor: number;
  private readonly startPerf: number;

  /**
   * `attributes` becomes the span's own map when it is clean (callers pass a fresh object literal and
   * never touch it again): no copy on the hot path.
   */
  constructor(
    private readonly sink: SpanSink,
    readonly traceId: string,
    readonly spanId: string,
    readonly traceFlags: number,
    readonly traceState: TraceState | undefined,
    readonly name: string,
    readonly kind: SpanKind,
    readonly parentSpanContext: SpanContext | undefined,
    parent: SpanRecord | undefined,
    attributes: SpanAttributes | undefined,
  ) {
    this.startPerf = performance.now();
    this.anchor = parent ? parent.anchor : Date.now() - this.startPerf;
    const count = attributes && this.sampled ? adoptable(attributes) : -1;
    if (count >= 0) {
      this.attributes = attributes as Attributes;
      this.attributeCount = count;
    } else {
      this.attributes = {};
      this.setAttributes(attributes);
    }
  }

  spanContext(): SpanContext {
    return this;
  }

  get sampled(): boolean {
    return (this.traceFlags & TraceFlags.SAMPLED) !== 0;
  }

  /** Wall-clock milliseconds (fractional) when the span started. */
  get startMs(): number {
    return this.anchor + this.startPerf;
  }

  /** Wall-clock milliseconds (fractional) when the span ended (meaningless before). */
  get endMs(): number {
    return this.anchor + this.endPerf;
  }

  get startTime(): HrTime {
    return hrTime(this.startMs);
  }

  get endTime(): HrTime {
    return this.ended ? hrTime(this.endMs) : [0, 0];
  }

  get duration(): HrTime {
    return this.ended ? hrTime(this.endPerf - this.startPerf) : [-1, -1];
  }

  get resource(): Resource {
    return this.sink.resource;
  }

  get instrumentationScope(): { name: string; version?: string } {
    return this.sink.instrumentationScope;
  }

  get links(): ReadableSpan["links"] {
    return NO_LINKS;
  }

  get events(): ReadableSpan["events"] {
    return NO_EVENTS;
  }

  get droppedEventsCount(): number {
    return 0;
  }

  get droppedLinksCount(): number {
    return 0;
  }

  setAttributes(attributes: SpanAttributes | undefined): void {
    if (this.ended || !attributes || !this.sampled) return;
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
      out[key] = value;
    }
  }

  fail(kind: string): void {
    if (this.ended || !this.sampled) return;
    this.setAttributes({ "error.type": kind });
    this.status = { code: SpanStatusCode.ERROR, message: kind };
  }

  end(): void {
    if (this.ended) return;
    this.endPerf = performance.now();
    this.ended = true;
    if (this.sampled) this.sink.processor.onEnd(this);
  }
}
