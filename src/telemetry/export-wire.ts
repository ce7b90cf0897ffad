// What crosses between the turn's thread and the export worker (export-worker.ts): a batch of span
// records as one JSON string of a flat array, and the few messages around it. Measured under Bun for 408
// spans: structured clone of a flat array took 0.6-0.7 ms of the sender's thread (1.1 ms as an object per
// span); JSON.stringify of the same flat array 0.25 ms, and posting the string 0.03 ms (a Float64Array of
// slots with a string table, transferred, took ~0.1 ms to post alone). The worker turns the batch back
// into ReadableSpans for the official serializer, scrubbing every string on the way (scrub.ts).
import { createTraceState, type Attributes, type HrTime, type SpanContext, type SpanKind, type SpanStatus } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { TelemetrySettings } from "./settings.ts";
import type { SpanRecord } from "./span-record.ts";

export type ToWorker =
  /** First message: what the worker's exporter needs (the settings hold the headers: they never leave the process). */
  | { type: "init"; settings: TelemetrySettings; secrets: readonly string[]; timeoutMs: number; resource: Record<string, string>; scope: { name: string; version: string } }
  | { type: "export"; id: number; spans: string }
  /** Waits for the exports under way, then answers: the last message before the worker is ended. */
  | { type: "shutdown"; id: number };

/** The answer to an export or shutdown message. */
export interface FromWorker {
  id: number;
  ok: boolean;
}

/** Milliseconds (fractional) as OpenTelemetry's [seconds, nanoseconds]. */
export function hrTime(ms: number): HrTime {
  let seconds = Math.trunc(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * 1e6);
  if (nanos >= 1e9) {
    seconds += 1;
    nanos -= 1e9;
  }
  return [seconds, nanos];
}

/** `[seconds, nanoseconds]` of `baseMs` (whole milliseconds) plus `offsetNs` (whole nanoseconds, may be negative). */
function hrTimeAt(baseMs: number, offsetNs: number): HrTime {
  const seconds = Math.floor(baseMs / 1000);
  const nanos = (baseMs - seconds * 1000) * 1e6 + offsetNs;
  const carry = Math.floor(nanos / 1e9);
  return [seconds + carry, nanos - carry * 1e9];
}

/** A trace or parent id equal to the previous span's (a turn's spans share both). */
const SAME = 0;

/**
 * The batch's base time (whole wall-clock milliseconds), then per span, in this order: trace id or SAME,
 * span id, parent span id, SAME or null, trace flags, trace state or null, name, kind, start and end
 * (whole nanoseconds from the base: an integer is written several times faster than a fractional
 * millisecond), status code, status message or null, dropped attribute count, attribute count n, then
 * n name/value pairs.
 */
export function packSpans(spans: readonly ReadableSpan[]): string {
  const records = spans as readonly SpanRecord[];
  const base = records.length === 0 ? 0 : Math.floor(records[0]!.startMs);
  const out: unknown[] = [base];
  let lastTrace = "";
  let lastParent = "";
  for (const span of records) {
    const parent = span.parentSpanContext;
    const traceId = span.traceId;
    const parentId = parent ? parent.spanId : null;
    out.push(traceId === lastTrace ? SAME : traceId, span.spanId, parentId !== null && parentId === lastParent ? SAME : parentId, span.traceFlags, span.traceState ? span.traceState.serialize() : null, span.name, span.kind, Math.round((span.startMs - base) * 1e6), Math.round((span.endMs - base) * 1e6), span.status.code, span.status.message ?? null, span.droppedAttributesCount, 0);
    lastTrace = traceId;
    if (parentId !== null) lastParent = parentId;
    const countAt = out.length - 1;
    let count = 0;
    const attributes = span.attributes;
    for (const key in attributes) {
      out.push(key, attributes[key]);
      count++;
    }
    out[countAt] = count;
  }
  return JSON.stringify(out);
}

const NO_LINKS: ReadableSpan["links"] = [];
const NO_EVENTS: ReadableSpan["events"] = [];

/**
 * The batch as the ReadableSpans the official serializers read (all of one resource and scope), every
 * string attribute and status message passed through `scrub` (scrub.ts).
 */
export function unpackSpans(text: string, resource: Resource, instrumentationScope: ReadableSpan["instrumentationScope"], scrub: (value: string) => string): ReadableSpan[] {
  const flat = JSON.parse(text) as unknown[];
  const spans: ReadableSpan[] = [];
  const base = flat[0] as number;
  let traceId = "";
  let lastParent = "";
  let i = 1;
  while (i < flat.length) {
    const trace = flat[i++] as string | typeof SAME;
    if (trace !== SAME) traceId = trace;
    const spanId = flat[i++] as string;
    const parent = flat[i++] as string | null | typeof SAME;
    const parentId = parent === SAME ? lastParent : parent;
    if (parentId !== null) lastParent = parentId;
    const traceFlags = flat[i++] as number;
    const rawState = flat[i++] as string | null;
    const name = flat[i++] as string;
    const kind = flat[i++] as SpanKind;
    const start = flat[i++] as number;
    const end = flat[i++] as number;
    const code = flat[i++] as SpanStatus["code"];
    const rawMessage = flat[i++] as string | null;
    const droppedAttributesCount = flat[i++] as number;
    const count = flat[i++] as number;
    const attributes: Attributes = {};
    for (let a = 0; a < count; a++, i += 2) {
      const value = flat[i + 1] as Attributes[string];
      attributes[flat[i] as string] = typeof value === "string" ? scrub(value) : value;
    }
    const message = rawMessage === null ? null : scrub(rawMessage);
    const traceState = rawState === null ? undefined : createTraceState(rawState);
    const context: SpanContext = { traceId, spanId, traceFlags, traceState };
    spans.push({
      name,
      kind,
      spanContext: () => context,
      parentSpanContext: parentId === null ? undefined : { traceId, spanId: parentId, traceFlags, traceState },
      startTime: hrTimeAt(base, start),
      endTime: hrTimeAt(base, end),
      duration: hrTimeAt(0, end - start),
      status: message === null ? { code } : { code, message },
      attributes,
      links: NO_LINKS,
      events: NO_EVENTS,
      ended: true,
      resource,
      instrumentationScope,
      droppedAttributesCount,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    });
  }
  return spans;
}
