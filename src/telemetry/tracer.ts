// The instrumentation seam: a tiny Tracer that engine, provider, tool, MCP, daemon and gateway code call
// through the contexts they already get (runtime, callDeps, daemon and gateway options). The default is a
// no-op, so code without a telemetry block pays one property read; the OpenTelemetry SDK behind the real
// one (otel-tracer.ts) is imported only when the global config has a `telemetry` block.

/**
 * Span attributes: primitives only. Callers pass names, ids, counts and statuses, never content, in a
 * fresh object: the tracer may keep it as the span's own map.
 */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export type SpanKindName = "internal" | "client" | "server";

/** The span of one turn (engine-spans.ts); the real tracer holds export back while one runs (turn-gate.ts). */
export const TURN_SPAN_NAME = "agent.turn";

export interface TraceSpan {
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed with a short error kind (a code or class name; never a message, which may quote content). */
  fail(kind: string): void;
  end(): void;
}

export interface Tracer {
  /** False for the no-op tracer: callers may skip work that only feeds attributes. */
  readonly enabled: boolean;
  /**
   * Starts a span, a child of `parent` when given; the caller ends it. Parents are passed explicitly, not
   * through an async context: under Bun an active AsyncLocalStorage slows every await inside it.
   */
  start(name: string, attributes?: SpanAttributes, kind?: SpanKindName, parent?: TraceSpan): TraceSpan;
  /** Runs `fn` inside a new span and ends it afterwards; a throw marks it failed (with the error's kind) and is rethrown. */
  run<T>(name: string, attributes: SpanAttributes, fn: (span: TraceSpan) => Promise<T>, kind?: SpanKindName, parent?: TraceSpan): Promise<T>;
  /** Sends what is buffered (bounded by the exporter's timeout). */
  flush(): Promise<void>;
  /** Flushes and stops exporting. */
  shutdown(): Promise<void>;
}

export const NOOP_SPAN: TraceSpan = {
  setAttributes() {},
  fail() {},
  end() {},
};

export const NOOP_TRACER: Tracer = {
  enabled: false,
  start: () => NOOP_SPAN,
  run: (_name, _attributes, fn) => fn(NOOP_SPAN),
  flush: async () => {},
  shutdown: async () => {},
};

/** The kind recorded for a thrown value: its short `kind` or `code` (provider and system errors), else its class name. */
export function errorKind(error: unknown): string {
  if (error && typeof error === "object") {
    const code = (error as { kind?: unknown }).kind ?? (error as { code?: unknown }).code;
    if (typeof code === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(code)) return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === "string" && name) return name;
  }
  return typeof error;
}
