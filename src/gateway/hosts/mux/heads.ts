// HEAD payloads: a request head `{method, path, headers, body}` or a response head `{status, headers, body}`.
// Headers travel as [name, value] pairs so repeated ones (set-cookie) survive; `body: false` means no DATA
// or END follows in that direction.
import { MuxProtocolError } from "./frames.ts";

export interface RequestHead {
  method: string;
  path: string;
  headers: [string, string][];
  body: boolean;
}

export interface ResponseHead {
  status: number;
  headers: [string, string][];
  body: boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;

export function requestHead(request: Request): RequestHead {
  const url = new URL(request.url);
  return { method: request.method, path: url.pathname + url.search, headers: [...request.headers], body: request.body !== null };
}

export function responseHead(response: Response): ResponseHead {
  return { status: response.status, headers: [...response.headers], body: response.body !== null };
}

export function parseRequestHead(value: Record<string, unknown>): RequestHead {
  const { method, path, body } = value;
  if (typeof method !== "string" || !TOKEN.test(method)) throw new MuxProtocolError(`request HEAD method must be an HTTP token, got ${JSON.stringify(method)?.slice(0, 40)}`);
  if (typeof path !== "string" || !path.startsWith("/") || /[\s\u0000-\u001f\u007f]/.test(path)) {
    throw new MuxProtocolError(`request HEAD path must start with / and hold no spaces or control characters, got ${JSON.stringify(path)?.slice(0, 80)}`);
  }
  if (typeof body !== "boolean") throw new MuxProtocolError("request HEAD body must be true or false");
  return { method, path, headers: parseHeaders(value.headers, "request"), body };
}

export function parseResponseHead(value: Record<string, unknown>): ResponseHead {
  const { status, body } = value;
  if (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599) throw new MuxProtocolError(`response HEAD status must be an integer from 200 to 599, got ${JSON.stringify(status)}`);
  if (typeof body !== "boolean") throw new MuxProtocolError("response HEAD body must be true or false");
  return { status: status as number, headers: parseHeaders(value.headers, "response"), body };
}

function parseHeaders(headers: unknown, kind: string): [string, string][] {
  if (!Array.isArray(headers)) throw new MuxProtocolError(`${kind} HEAD headers must be an array of [name, value] pairs`);
  for (const pair of headers) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string" || typeof pair[1] !== "string") {
      throw new MuxProtocolError(`${kind} HEAD headers must be an array of [name, value] string pairs`);
    }
  }
  return headers as [string, string][];
}
