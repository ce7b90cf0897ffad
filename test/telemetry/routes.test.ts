// Gateway route spans through the real gateway server, and the route templates that keep ids, proxied
// paths and query strings (tokens) out of span names.
import { afterEach, describe, expect, test } from "bun:test";
import { routeTemplate } from "../../src/telemetry/http-spans.ts";
import { startTelemetry } from "../../src/telemetry/start.ts";
import { startTestGateway } from "../gateway/helpers.ts";
import { startOtlpReceiver, type OtlpReceiver } from "./otlp-receiver.ts";

let receiver: OtlpReceiver;
afterEach(() => receiver?.stop());

describe("route templates", () => {
  test("prefixed ids and long opaque segments become :id; proxied paths are cut", () => {
    expect(routeTemplate("/health")).toBe("/health");
    expect(routeTemplate("/api/v1/sessions/ses_06gzxq5s0ws50xsw5pwzbnn283/proxy/events")).toBe("/api/v1/sessions/:id/proxy/*");
    expect(routeTemplate("/api/v1/tokens/tok_abc123")).toBe("/api/v1/tokens/:id");
    expect(routeTemplate("/interrogatives/int_0123/response")).toBe("/interrogatives/:id/response");
    expect(routeTemplate("/commands/mcp")).toBe("/commands/mcp");
    expect(routeTemplate("/x/123e4567-e89b-12d3-a456-426614174000")).toBe("/x/:id");
  });
});

test("the gateway exports a server span per request with route and status, never the token or query", async () => {
  receiver = startOtlpReceiver();
  const tracer = await startTelemetry({ block: { endpoint: receiver.url, protocol: "http/json" }, env: {}, role: "gateway" });
  const gw = await startTestGateway("", { tracer });
  try {
    expect((await fetch(`${gw.url}/api/v1/health`)).status).toBe(200);
    const denied = await fetch(`${gw.url}/api/v1/sessions?cursor=secret-cursor-value`, { headers: { Authorization: "Bearer pat_notavalidtoken0123456789abcdef" } });
    expect(denied.status).toBe(401);
  } finally {
    await gw.stop();
    await tracer.shutdown();
  }
  const spans = receiver.spans();
  const health = spans.find((s) => s.name === "GET /api/v1/health")!;
  expect(health.attributes).toMatchObject({ "http.request.method": "GET", "http.route": "/api/v1/health", "http.response.status_code": 200 });
  expect(health.resource["agent.role"]).toBe("gateway");
  expect(spans.find((s) => s.name === "GET /api/v1/sessions")!.attributes["http.response.status_code"]).toBe(401);
  const wire = receiver.requests.map((r) => new TextDecoder().decode(r.body)).join("");
  expect(wire).not.toContain("secret-cursor-value");
  expect(wire).not.toContain("pat_notavalidtoken");
});
