import { expect, test } from "bun:test";
import { errorFromResponse, retryHintMs } from "../../src/providers/http.ts";

const NOW = Date.parse("2026-01-01T00:00:00Z");

test("retry hints: retry-after-ms first, then retry-after seconds or HTTP date", () => {
  expect(retryHintMs(new Headers({ "retry-after-ms": "1500", "retry-after": "9" }), NOW)).toBe(1500);
  expect(retryHintMs(new Headers({ "retry-after": "120" }), NOW)).toBe(120_000);
  expect(retryHintMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), NOW)).toBe(30_000);
  expect(retryHintMs(new Headers({ "retry-after": "soon" }), NOW)).toBeNull();
  expect(retryHintMs(new Headers(), NOW)).toBeNull();
});

test.each([
  [400, { error: { message: "This model's maximum context length is 8192 tokens", type: "invalid_request_error", code: "context_length_exceeded" } }, "context_length_exceeded", "context_length_exceeded"],
  [400, { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" } }, "context_length_exceeded", "invalid_request_error"],
  [400, { type: "error", error: { type: "invalid_request_error", message: "tools.0.name: bad" } }, "invalid_request", "invalid_request_error"],
  [413, { type: "error", error: { type: "request_too_large", message: "too large" } }, "context_length_exceeded", "request_too_large"],
  [429, { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }, "rate_limited", "rate_limit_exceeded"],
  [529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "overloaded", "overloaded_error"],
  [403, { type: "error", error: { type: "permission_error", message: "no" } }, "auth", "permission_error"],
  [502, "<html>bad gateway</html>", "server", "http_502"],
] as const)("HTTP %i maps to a typed error", async (status, body, kind, code) => {
  const res = new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers: { "x-should-retry": "false", "x-request-id": "req_9" } });
  const e = await errorFromResponse(res, NOW, []);
  expect(e.kind).toBe(kind);
  expect(e.code).toBe(code);
  expect(e.status).toBe(status);
  expect(e.shouldRetry).toBe(false);
  expect(e.requestId).toBe("req_9");
});

test("the key never survives into the error message, even when the provider echoes it", async () => {
  const key = "k-live-0123456789abcdef";
  const res = new Response(JSON.stringify({ error: { message: `Incorrect API key provided: ${key}`, type: "invalid_request_error", code: "invalid_api_key" } }), { status: 401 });
  const e = await errorFromResponse(res, NOW, [key]);
  expect(e.kind).toBe("auth");
  expect(e.message).not.toContain(key);
  expect(e.message).toContain("[redacted]");
});
