// How the telemetry block and OTEL_* variables combine: variables override values, never enable export.
import { describe, expect, test } from "bun:test";
import { resolveTelemetry } from "../../src/telemetry/settings.ts";

describe("telemetry settings", () => {
  test("no block: no settings, whatever the environment says", () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_TRACES_SAMPLER: "always_on", OTEL_SERVICE_NAME: "x" };
    expect(resolveTelemetry(undefined, env).settings).toBeNull();
    expect(resolveTelemetry(null, env).settings).toBeNull();
  });

  test("an empty block exports with the defaults", () => {
    expect(resolveTelemetry({}, {}).settings).toEqual({
      tracesUrl: "http://localhost:4318/v1/traces",
      protocol: "http/json",
      headers: {},
      serviceName: "agent",
      sampler: { type: "ratio", ratio: 1, parentBased: true },
    });
  });

  test("OTEL_* variables override the block's values; the traces-specific ones win", () => {
    const block = { endpoint: "https://collector.example:4318/", protocol: "http/protobuf" as const, headers: { "X-Team": "blue", "x-env": "prod" }, service_name: "svc", sample_ratio: 0.25 };
    expect(resolveTelemetry(block, {}).settings!.tracesUrl).toBe("https://collector.example:4318/v1/traces");
    const s = resolveTelemetry(block, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://a.example:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b.example:9999/custom/traces",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-team=red,api-key=a%20b",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "api-key=c",
      OTEL_SERVICE_NAME: "from-env",
      OTEL_TRACES_SAMPLER: "traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.5",
    }).settings!;
    expect(s.tracesUrl).toBe("http://b.example:9999/custom/traces");
    expect(s.protocol).toBe("http/json");
    expect(s.headers).toEqual({ "x-team": "red", "x-env": "prod", "api-key": "c" });
    expect(s.serviceName).toBe("from-env");
    expect(s.sampler).toEqual({ type: "ratio", ratio: 0.5, parentBased: false });
  });

  test("OTEL_SDK_DISABLED=true turns a configured export off", () => {
    expect(resolveTelemetry({ endpoint: "http://127.0.0.1:4318" }, { OTEL_SDK_DISABLED: "true" }).settings).toBeNull();
  });

  test("bad variables are ignored with a warning that names the variable but never a header value", () => {
    const { settings, warnings } = resolveTelemetry({ protocol: "http/json" }, {
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://nope",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20sekrit-token,broken-entry-sekrit2",
      OTEL_TRACES_SAMPLER: "sometimes",
    });
    expect(settings!.protocol).toBe("http/json");
    expect(settings!.tracesUrl).toBe("http://localhost:4318/v1/traces");
    expect(settings!.headers).toEqual({ authorization: "Bearer sekrit-token" });
    expect(warnings.join("\n")).toContain("OTEL_EXPORTER_OTLP_PROTOCOL='grpc' is not supported (allowed: http/json, http/protobuf)");
    expect(warnings.join("\n")).toContain("OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s) URL");
    expect(warnings.join("\n")).toContain("OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not name=value");
    expect(warnings.join("\n")).toContain("OTEL_TRACES_SAMPLER='sometimes' is not supported");
    expect(warnings.join("\n")).not.toContain("sekrit");
  });
});
