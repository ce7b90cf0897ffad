// Outbound HTTP for the web tools: which proxy a URL goes through (`daemon.web`), the trust store's CAs
// (`daemon.tls.trust_store`), size-capped body reading, and network failures explained in words a model
// can act on. Credentials in proxy URLs never appear in a message.
import type { Static } from "@sinclair/typebox";
import type { DaemonConfig } from "../config/schema/daemon.ts";
import { fetchTlsOptions, type TrustStore } from "../providers/tls.ts";

export type WebSettings = NonNullable<Static<typeof DaemonConfig>["web"]>;

export interface WebHttpOptions {
  /** `daemon.web` (proxies, web_fetch_disallow_http). */
  web?: WebSettings | null;
  /** The loaded `daemon.tls.trust_store`, or null for the default roots only. */
  trustStore?: Pick<TrustStore, "certificates"> | null;
}

/** `localhost`, `*.localhost`, 127.0.0.0/8 and ::1: the hosts plain HTTP stays allowed for. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "::1" || host === "0:0:0:0:0:0:0:1") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The configured proxy for this URL's scheme (`http_proxy` for http:, `https_proxy` for https:). */
export function proxyFor(url: URL, web: WebSettings | null | undefined): string | undefined {
  const proxy = url.protocol === "http:" ? web?.http_proxy : web?.https_proxy;
  return proxy ? proxy : undefined;
}

/** A URL with any `user:password@` removed, for messages. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = "";
    parsed.password = "";
    return parsed.href;
  } catch {
    return url.replace(/\/\/[^/@]*@/, "//");
  }
}

/** The fetch options shared by both web tools: proxy, TLS roots, no automatic redirects. */
export function webRequestInit(url: URL, options: WebHttpOptions, init: RequestInit & { signal: AbortSignal }): RequestInit {
  const proxy = proxyFor(url, options.web);
  const tls = fetchTlsOptions(options.trustStore ?? null);
  return { redirect: "manual", ...init, ...(proxy ? { proxy } : {}), ...(tls ? { tls } : {}) } as RequestInit;
}

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME|TLS|SSL|HANDSHAKE/i;

/** Why a request failed before any response, for the model: what happened and what it can do. */
export function describeNetworkError(error: unknown, url: URL, options: WebHttpOptions): string {
  const code = String((error as { code?: unknown })?.code ?? "");
  const proxy = proxyFor(url, options.web);
  const via = proxy ? ` through the proxy ${shownUrl(proxy)} (daemon.web.${url.protocol === "http:" ? "http_proxy" : "https_proxy"})` : "";
  const where = `${url.host}${via}`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `The host name ${url.hostname} could not be resolved (DNS). Check the spelling of the URL.`;
  if (code === "ECONNREFUSED") return `Connection refused by ${where}: nothing is listening there. Check the host and port.`;
  if (code === "ECONNRESET") return `The connection to ${where} was closed before a response arrived.`;
  if (code === "ETIMEDOUT" || code === "TimeoutError") return `The connection to ${where} timed out.`;
  if (TLS_CODES.test(code)) {
    return (
      `The TLS certificate of ${url.host} is not trusted (${code}). If this is an internal server with its own ` +
      "certificate authority, the user can add that CA to daemon.tls.trust_store; do not try to work around it."
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  const safe = proxy ? message.split(proxy).join(shownUrl(proxy)) : message;
  return `The request to ${where} failed: ${code ? `${code}: ` : ""}${safe}`;
}

/** Reads at most `maxBytes` of a body, cancelling the rest. */
export async function readCapped(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (size + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes, truncated };
}

/** The media type without parameters, lower case (`text/html`). */
export function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Decodes with the response's charset when it names one we know, else UTF-8. */
export function decodeBody(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}
