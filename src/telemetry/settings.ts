// What the exporter uses: the global config's `telemetry` block with the matching OTEL_* environment
// variables laid over it. The variables override values but never enable export: without the block
// there are no settings at all (agent-config.md, top-level table).
import type { Static } from "@sinclair/typebox";
import type { TelemetryConfig } from "../config/schema/session.ts";

export type TelemetryBlock = Static<typeof TelemetryConfig>;

export const OTLP_PROTOCOLS = ["http/json", "http/protobuf"] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export type SamplerSetting = { type: "always_on" } | { type: "always_off" } | { type: "ratio"; ratio: number; parentBased: boolean };

export interface TelemetrySettings {
  /** The full traces URL (`<endpoint>/v1/traces`, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given). */
  tracesUrl: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  serviceName: string;
  sampler: SamplerSetting;
}

export const DEFAULT_OTLP_ENDPOINT = "http://localhost:4318";
export const DEFAULT_SERVICE_NAME = "agent";

type Env = Readonly<Record<string, string | undefined>>;

const SAMPLERS = ["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"];

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const tracesPath = (base: string) => `${base.replace(/\/+$/, "")}/v1/traces`;

/** `k1=v1,k2=v2` with percent-encoded values (the OTLP exporter spec); a bad entry is reported by position. */
function parseHeaderList(name: string, raw: string, warnings: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  raw.split(",").forEach((entry, i) => {
    if (entry.trim() === "") return;
    const eq = entry.indexOf("=");
    const key = eq > 0 ? entry.slice(0, eq).trim() : "";
    let value: string | undefined;
    try {
      value = eq > 0 ? decodeURIComponent(entry.slice(eq + 1).trim()) : undefined;
    } catch {
      value = undefined;
    }
    // The value may be a secret: the warning names the variable and the entry's position only.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key) || value === undefined) warnings.push(`${name}: entry ${i + 1} is not name=value (percent-encoded); it was ignored`);
    else out[key.toLowerCase()] = value;
  });
  return out;
}

function resolveSampler(block: TelemetryBlock, env: Env, warnings: string[]): SamplerSetting {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase();
  const fromBlock = (): SamplerSetting => ({ type: "ratio", ratio: block.sample_ratio ?? 1, parentBased: true });
  if (!name) return fromBlock();
  if (!SAMPLERS.includes(name)) {
    warnings.push(`OTEL_TRACES_SAMPLER='${name}' is not supported (allowed: ${SAMPLERS.join(", ")}); using telemetry.sample_ratio`);
    return fromBlock();
  }
  if (name.endsWith("always_on")) return name.startsWith("parentbased") ? { type: "ratio", ratio: 1, parentBased: true } : { type: "always_on" };
  if (name.endsWith("always_off")) return { type: "always_off" };
  const arg = env.OTEL_TRACES_SAMPLER_ARG;
  let ratio = block.sample_ratio ?? 1;
  if (arg !== undefined && arg.trim() !== "") {
    const n = Number(arg);
    if (Number.isFinite(n) && n >= 0 && n <= 1) ratio = n;
    else warnings.push(`OTEL_TRACES_SAMPLER_ARG='${arg}' is not a number from 0 to 1; using ${ratio}`);
  }
  return { type: "ratio", ratio, parentBased: name.startsWith("parentbased") };
}

function resolveUrl(block: TelemetryBlock, env: Env, warnings: string[]): string {
  const candidates: [string, string | undefined, (v: string) => string][] = [
    ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, (v) => v],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", env.OTEL_EXPORTER_OTLP_ENDPOINT, tracesPath],
  ];
  for (const [name, value, toUrl] of candidates) {
    if (value === undefined || value.trim() === "") continue;
    if (isHttpUrl(value.trim())) return toUrl(value.trim());
    warnings.push(`${name} is not an http(s) URL; it was ignored`);
  }
  return tracesPath(block.endpoint ?? DEFAULT_OTLP_ENDPOINT);
}

function resolveProtocol(block: TelemetryBlock, env: Env, warnings: string[]): OtlpProtocol {
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]) {
    const value = env[name]?.trim();
    if (!value) continue;
    if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return value as OtlpProtocol;
    warnings.push(`${name}='${value}' is not supported (allowed: ${OTLP_PROTOCOLS.join(", ")}); it was ignored`);
  }
  // JSON by default: under Bun the official protobuf serializer takes 1.6-2x the main-thread time of the JSON one (decisions-platform.md 2).
  return block.protocol ?? "http/json";
}

/** The export settings, or null when nothing may be exported (no block, or OTEL_SDK_DISABLED=true). */
export function resolveTelemetry(block: TelemetryBlock | null | undefined, env: Env): { settings: TelemetrySettings | null; warnings: string[] } {
  const warnings: string[] = [];
  if (!block) return { settings: null, warnings };
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return { settings: null, warnings };
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(block.headers ?? {})) headers[k.toLowerCase()] = v;
  for (const name of ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"]) {
    const raw = env[name];
    if (raw) Object.assign(headers, parseHeaderList(name, raw, warnings));
  }
  const settings: TelemetrySettings = {
    tracesUrl: resolveUrl(block, env, warnings),
    protocol: resolveProtocol(block, env, warnings),
    headers,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || block.service_name || DEFAULT_SERVICE_NAME,
    sampler: resolveSampler(block, env, warnings),
  };
  return { settings, warnings };
}
