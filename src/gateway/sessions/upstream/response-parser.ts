// Incremental parser of a session daemon's HTTP/1.1 responses, for the proxy's own upstream client
// (upstream-client.ts). The peer is our daemon on loopback, but the parser is still strict: anything it
// cannot frame with certainty (conflicting lengths, obsolete line folding, a bad chunk size, an oversized
// head) is an error, never a guess; the proxy then answers 502 and drops the connection.

import { ChunkedDecoder, ChunkedFramingError } from "./chunked.ts";

const HEAD_END = Buffer.from("\r\n\r\n");
const MAX_HEAD = 64 * 1024;
/** Headers that describe one hop only; dropped from what the proxy passes on (plus those Connection names). */
export const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "proxy-connection"]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: ([^\r\n]*))?$/;
const EMPTY = Buffer.alloc(0);
const INTERIM_REFUSED = new Set(["content-length", "transfer-encoding", "connection"]);
/** Control characters but HTAB: refused in header values, as llhttp refuses them. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

export class ResponseFramingError extends Error {
  override name = "ResponseFramingError";
}

export interface ResponseHead {
  status: number;
  statusText: string;
  /** End-to-end headers in order (hop-by-hop ones removed). */
  headers: [string, string][];
  /** Whether the connection may carry another request after this response's body. */
  reusable: boolean;
}

export interface ParserEvents {
  head(head: ResponseHead): void;
  body(bytes: Buffer): void;
  end(): void;
}

const NONE = 0;
const LENGTH = 1;
const CHUNKED = 2;
const CLOSE = 3;

/**
 * Feed it bytes as they arrive; it reports the head once, then body bytes (chunked encoding removed), then
 * the end. One parser per response: `rest()` hands over any bytes that follow the response.
 */
/** One header line as [name, value without surrounding whitespace]; throws on anything not a field. */
function headerLine(line: string): [string, string] {
  const first = line.charCodeAt(0);
  if (first === 32 || first === 9) throw new ResponseFramingError("obsolete line folding in a response header");
  const colon = line.indexOf(":");
  const name = line.slice(0, colon);
  if (colon <= 0 || !TOKEN.test(name)) throw new ResponseFramingError("malformed response header");
  // A bare CR or LF (the head was split on CRLF) or a NUL would split the header the proxy writes on.
  if (CONTROL.test(line)) throw new ResponseFramingError("control characters in a response header value");
  return [name, trimOws(line, colon + 1)];
}

/** The value from `from`, without leading and trailing spaces and tabs (only those: String.trim takes more). */
function trimOws(line: string, from: number): string {
  let end = line.length;
  while (from < end && (line.charCodeAt(from) === 32 || line.charCodeAt(from) === 9)) from++;
  while (end > from && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
  return line.slice(from, end);
}

export class ResponseParser {
  private buf: Buffer = EMPTY;
  private headSeen = false;
  private mode = NONE;
  /** Body bytes still to come in LENGTH mode. */
  private left = 0;
  private chunked: ChunkedDecoder | undefined;
  private ended = false;

  constructor(
    private readonly method: string,
    private readonly on: ParserEvents,
  ) {}

  /** Bytes after the end of the response (a well-behaved daemon sends none before the next request). */
  rest(): Buffer {
    return this.chunked ? this.chunked.rest() : this.buf;
  }

  /** Throws ResponseFramingError on bytes that cannot be framed. */
  push(chunk: Buffer): void {
    if (this.chunked) return this.parseChunks(chunk);
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    if (this.ended) return;
    if (!this.headSeen && !this.parseHead()) return;
    this.parseBody();
  }

  /** The connection closed: the end of a close-delimited body, else a truncated response. */
  eof(): void {
    if (this.ended) return;
    if (this.headSeen && this.mode === CLOSE) return this.finish();
    throw new ResponseFramingError(this.headSeen ? "the daemon closed the connection in the middle of a response body" : "the daemon closed the connection before a response");
  }

  private parseHead(): boolean {
    for (;;) {
      const at = this.buf.indexOf(HEAD_END);
      if (at < 0) {
        if (this.buf.length > MAX_HEAD) throw new ResponseFramingError("response head larger than 64 KiB");
        return false;
      }
      if (at + 4 > MAX_HEAD) throw new ResponseFramingError("response head larger than 64 KiB");
      const lines = this.buf.toString("latin1", 0, at).split("\r\n");
      this.buf = this.buf.subarray(at + 4);
      const status = STATUS_LINE.exec(lines[0]!);
      const code = Number(status?.[2]);
      if (!status || code < 100) throw new ResponseFramingError("malformed status line");
      // Interim responses (100 Continue, 103 Early Hints) are not passed on; 101 would switch protocols.
      if (code === 101) throw new ResponseFramingError("the daemon switched protocols");
      if (code < 200) {
        // HTTP/1.0 has no interim responses (llhttp would read one as closing the connection).
        if (status[1] === "0") throw new ResponseFramingError("an interim response in HTTP/1.0");
        // Not passed on, but checked like any head (llhttp checks them too); framing or connection headers
        // on a response that has no body are refused, not weighed.
        for (let i = 1; i < lines.length; i++) {
          if (INTERIM_REFUSED.has(headerLine(lines[i]!)[0].toLowerCase())) throw new ResponseFramingError("framing headers on an interim response");
        }
        continue;
      }
      this.headSeen = true;
      this.on.head(this.readHeaders(lines, code, status[3] ?? "", status[1] === "0"));
      return true;
    }
  }

  private readHeaders(lines: string[], status: number, statusText: string, http10: boolean): ResponseHead {
    let headers: [string, string][] = [];
    let length = -1;
    let transferEncoding: string | undefined;
    let connection: string[] | undefined;
    for (let i = 1; i < lines.length; i++) {
      const [name, value] = headerLine(lines[i]!);
      const lower = name.toLowerCase();
      if (HOP_BY_HOP.has(lower)) {
        if (lower === "transfer-encoding") {
          // llhttp does not read "chunked<TAB>" as chunked: a tab in a framing header is refused, not guessed at.
          if (lines[i]!.includes("\t")) throw new ResponseFramingError("a tab in Transfer-Encoding");
          transferEncoding = transferEncoding === undefined ? value : `${transferEncoding},${value}`;
        } else if (lower === "connection") (connection ??= []).push(...value.toLowerCase().split(",").map((s) => s.trim()));
        continue;
      }
      if (lower === "content-length") {
        // A repeated Content-Length is refused even with the same value, and a tab around it, as llhttp refuses them.
        if (!/^\d{1,15}$/.test(value) || length >= 0 || lines[i]!.includes("\t")) throw new ResponseFramingError("invalid or repeated Content-Length");
        length = Number(value);
      }
      headers.push([name, value]);
    }
    if (connection) {
      const named = new Set(connection);
      headers = headers.filter(([n]) => !named.has(n.toLowerCase()));
    }
    let reusable = http10 ? connection?.includes("keep-alive") === true : connection?.includes("close") !== true;
    // RFC 9112 6.3: both at once "ought to be handled as an error" (llhttp refuses it too); passing the body
    // on with the stale Content-Length would misframe it for the client.
    if (transferEncoding !== undefined && length >= 0) throw new ResponseFramingError("both Transfer-Encoding and Content-Length in a response");
    if (this.method === "HEAD" || status === 204 || status === 304) this.mode = NONE;
    else if (transferEncoding !== undefined) {
      // A final coding other than chunked reads to close.
      const codings = transferEncoding.toLowerCase().split(",");
      if (codings[codings.length - 1]!.trim() === "chunked") {
        this.mode = CHUNKED;
        this.chunked = new ChunkedDecoder((data) => this.on.body(data));
      }
      else {
        this.mode = CLOSE;
        reusable = false;
      }
    } else if (length >= 0) {
      this.mode = LENGTH;
      this.left = length;
    } else {
      this.mode = CLOSE;
      reusable = false;
    }
    return { status, statusText, headers, reusable };
  }

  private parseBody(): void {
    switch (this.mode) {
      case NONE:
        return this.finish();
      case CLOSE:
        if (this.buf.length) this.on.body(this.take(this.buf.length));
        return;
      case LENGTH: {
        const n = Math.min(this.left, this.buf.length);
        if (n > 0) {
          this.left -= n;
          this.on.body(this.take(n));
        }
        if (this.left === 0) this.finish();
        return;
      }
      default: {
        const rest = this.buf;
        this.buf = EMPTY;
        this.parseChunks(rest);
      }
    }
  }

  private parseChunks(bytes: Buffer): void {
    let over: boolean;
    try {
      over = this.chunked!.push(bytes);
    } catch (error) {
      if (error instanceof ChunkedFramingError) throw new ResponseFramingError(error.message);
      throw error;
    }
    // After the end the decoder only keeps what follows (rest()).
    if (over && !this.ended) this.finish();
  }

  private take(n: number): Buffer {
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  private finish(): void {
    this.ended = true;
    this.on.end();
  }
}
