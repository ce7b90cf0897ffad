// The one way a process gets its Tracer: the no-op one unless the global config has a telemetry block
// (then the OpenTelemetry SDK is imported, here and only here).
import { loadConfig } from "../config/load.ts";
import { NOOP_TRACER, type SpanAttributes, type SpanKindName, type TraceSpan, type Tracer } from "./tracer.ts";
import { resolveTelemetry, type TelemetryBlock } from "./settings.ts";

export interface StartTelemetryOptions {
  /** `telemetry` of the loaded config (global-only: a project layer cannot set it). */
  block: TelemetryBlock | null | undefined;
  env: Readonly<Record<string, string | undefined>>;
  role: "cli" | "daemon" | "gateway";
  /** Configured secrets, scrubbed from attribute strings as a second guard. */
  secrets?: readonly string[];
  /** Told about ignored OTEL_* values (the message names the variable, never a header value). */
  warn?: (message: string) => void;
}

export async function startTelemetry(options: StartTelemetryOptions): Promise<Tracer> {
  const { settings, warnings } = resolveTelemetry(options.block, options.env);
  for (const w of warnings) options.warn?.(`telemetry: ${w}`);
  if (!settings) return NOOP_TRACER;
  const { createOtelTracer } = await import("./otel-tracer.ts");
  return createOtelTracer({ settings, role: options.role, secrets: options.secrets ?? [], warn: options.warn });
}

/**
 * The tracer of one session: the host's (the daemon passes its process tracer), else one started from
 * the config for this session alone (`agent exec`), which `close` flushes and stops.
 */
export async function sessionTracer(given: Tracer | undefined, options: Omit<StartTelemetryOptions, "role">): Promise<{ tracer: Tracer; close(): Promise<void> }> {
  if (given) return { tracer: given, close: async () => {} };
  const tracer = await startTelemetry({ ...options, role: "cli" });
  return { tracer, close: () => tracer.shutdown() };
}

/**
 * The gateway's tracer, from the global app config's telemetry block (the gateway loads no app config
 * otherwise); the block is global-only, so the working directory does not change it.
 */
export async function processTracer(role: "gateway", env: Readonly<Record<string, string | undefined>>, cwd: string, warn: (message: string) => void, configFile?: string): Promise<Tracer> {
  const loaded = loadConfig({ cwd, env, configFile });
  return startTelemetry({ block: loaded.config.telemetry, env, role, secrets: loaded.secrets, warn });
}

/**
 * The daemon's tracer, chosen once its engine has loaded the config (which happens before the daemon
 * listens): loading the config a second time just for telemetry would run its `$(command)`
 * substitutions twice. Until then, and without a telemetry block, it is the no-op tracer.
 */
export class DeferredTracer implements Tracer {
  private inner: Tracer = NOOP_TRACER;
  private chosen = false;

  /** Starts export from the loaded config's block; later calls (a re-created engine) keep the first choice. */
  async choose(options: Omit<StartTelemetryOptions, "role">): Promise<void> {
    if (this.chosen) return;
    this.chosen = true;
    this.inner = await startTelemetry({ ...options, role: "daemon" });
  }

  get enabled(): boolean {
    return this.inner.enabled;
  }

  start(name: string, attributes?: SpanAttributes, kind?: SpanKindName, parent?: TraceSpan): TraceSpan {
    return this.inner.start(name, attributes, kind, parent);
  }

  run<T>(name: string, attributes: SpanAttributes, fn: (span: TraceSpan) => Promise<T>, kind?: SpanKindName, parent?: TraceSpan): Promise<T> {
    return this.inner.run(name, attributes, fn, kind, parent);
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
