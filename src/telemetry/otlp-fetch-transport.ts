// The OTLP/HTTP transport under the official exporter pipeline (OTLPExporterBase and the export delegate
// of @opentelemetry/otlp-exporter-base, the official serializers of @opentelemetry/otlp-transformer),
// sending with Bun's native fetch. The packaged Node exporters send through node:http, whose socket
// layer under Bun took more of a profiled traced turn than encoding the spans (docs/telemetry.md);
// fetch sends the same bytes with the same headers. Retries follow the official retrying transport:
// 429/502/503/504 and network errors, Retry-After honoured, all within the export's timeout.
import type { ExportResponse, IExporterTransport } from "@opentelemetry/otlp-exporter-base";
import { VERSION } from "../version.ts";

const MAX_ATTEMPTS = 5;
const INITIAL_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 5000;
const USER_AGENT = `agent/${VERSION} OTel-OTLP-Exporter-JavaScript`;

const retryableStatus = (status: number) => status === 429 || status === 502 || status === 503 || status === 504;

/** Retry-After as milliseconds: delay-seconds or an HTTP date (as the official transport reads it). */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  const seconds = Number.parseInt(value, 10);
  if (Number.isInteger(seconds)) return seconds > 0 ? seconds * 1000 : -1;
  const delay = new Date(value).getTime() - Date.now();
  return Number.isNaN(delay) ? undefined : Math.max(delay, 0);
}

export interface FetchTransportOptions {
  url: string;
  headers: Record<string, string>;
  contentType: string;
}

export function createFetchTransport(options: FetchTransportOptions): IExporterTransport {
  const headers = { ...options.headers, "content-type": options.contentType, "user-agent": USER_AGENT };

  const once = async (body: Uint8Array, timeoutMs: number): Promise<ExportResponse> => {
    try {
      const response = await fetch(options.url, { method: "POST", headers, body: body as Uint8Array<ArrayBuffer>, signal: AbortSignal.timeout(Math.max(timeoutMs, 1)), redirect: "manual" });
      const data = new Uint8Array(await response.arrayBuffer());
      if (response.status >= 200 && response.status <= 299) return { status: "success", data };
      if (retryableStatus(response.status)) return { status: "retryable", retryInMillis: retryAfterMs(response.headers.get("retry-after")) };
      // The collector's status only: its body may echo what was sent.
      return { status: "failure", error: new Error(`OTLP export failed with HTTP status ${response.status}`) };
    } catch (error) {
      // A refused or reset connection may succeed later; a timeout ends this export.
      const name = (error as { name?: unknown }).name;
      if (name === "TimeoutError" || name === "AbortError") return { status: "failure", error: new Error("OTLP export timed out") };
      return { status: "retryable", error: new Error("OTLP export could not reach the collector") };
    }
  };

  return {
    async send(body, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let backoff = INITIAL_BACKOFF_MS;
      let result = await once(body, timeoutMs);
      for (let attempt = 1; result.status === "retryable" && attempt < MAX_ATTEMPTS; attempt++) {
        const jittered = Math.min(backoff * (0.8 + Math.random() * 0.4), MAX_BACKOFF_MS);
        backoff *= 1.5;
        const wait = result.retryInMillis ?? jittered;
        const remaining = deadline - Date.now();
        if (wait > remaining) break;
        await Bun.sleep(Math.max(wait, 0));
        result = await once(body, deadline - Date.now());
      }
      return result;
    },
    shutdown() {},
  };
}
