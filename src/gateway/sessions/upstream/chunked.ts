// Strict decoder of HTTP/1.1 chunked transfer coding, for the proxy's response parser (response-parser.ts).
// Anything it cannot frame with certainty (a bad size line, data not followed by CRLF,
// oversized lines or trailers) is an error, never a guess. Trailer fields are read and dropped.

const CR = 13;
const LF = 10;
const MAX_CHUNK_LINE = 4096;
const MAX_TRAILERS = 16 * 1024;
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t !#-\\[\\]-~\\x80-\\xff]|\\\\[\\t -~\\x80-\\xff])*"';
/**
 * Hex size (at most 12 digits), then extensions as RFC 9112 7.1.1 writes them (`;name` or `;name=token` or
 * `;name="quoted"`), checked though dropped, as llhttp checks them. No whitespace after the size: RFC
 * 9112 allows it before a ";", llhttp (node's parser) refuses it, and we frame nothing llhttp would not.
 */
const CHUNK_SIZE = new RegExp(`^([0-9A-Fa-f]{1,12})(?:;${TOKEN}(?:=(?:${TOKEN}|${QUOTED}))?)*$`);
/** A trailer field: a token name, a colon, and a value without control characters but HTAB. */
const TRAILER_FIELD = new RegExp(`^${TOKEN}:[^\\x00-\\x08\\x0a-\\x1f\\x7f]*$`);

export class ChunkedFramingError extends Error {
  override name = "ChunkedFramingError";
}

/**
 * Feed it the bytes after a head; it hands out data bytes (`onData`) and reports, from `push`, whether the
 * last chunk and the trailers were read. `rest()` returns what follows the body.
 */
export class ChunkedDecoder {
  private buf: Buffer = Buffer.alloc(0);
  private chunkLeft = -1; // -1: expecting a size line; 0: expecting the CRLF after a chunk's data
  private inTrailers = false;
  private trailerBytes = 0;
  private ended = false;

  constructor(private readonly onData: (bytes: Buffer) => void) {}

  rest(): Buffer {
    return this.buf;
  }

  /** Returns true once the body ended; throws ChunkedFramingError on bytes that cannot be framed. */
  push(chunk: Buffer): boolean {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    if (this.ended) return true;
    for (;;) {
      if (this.inTrailers) {
        const eol = this.buf.indexOf("\r\n");
        if (eol < 0) {
          if (this.trailerBytes + this.buf.length > MAX_TRAILERS) throw new ChunkedFramingError("chunked trailers larger than 16 KiB");
          return false;
        }
        this.trailerBytes += eol + 2;
        if (this.trailerBytes > MAX_TRAILERS) throw new ChunkedFramingError("chunked trailers larger than 16 KiB");
        const line = this.buf.toString("latin1", 0, eol);
        if (line.includes("\n") || line.includes("\r")) throw new ChunkedFramingError("bare CR or LF in chunked trailers");
        // Dropped, but still a field (name, colon), as llhttp requires: anything else is not a trailer section.
        if (eol > 0 && !TRAILER_FIELD.test(line)) throw new ChunkedFramingError("malformed chunked trailer field");
        this.buf = this.buf.subarray(eol + 2);
        if (eol === 0) {
          this.ended = true;
          return true;
        }
        continue;
      }
      if (this.chunkLeft === -1) {
        const eol = this.buf.indexOf("\r\n");
        if (eol > MAX_CHUNK_LINE || (eol < 0 && this.buf.length > MAX_CHUNK_LINE)) throw new ChunkedFramingError("chunk size line too long");
        if (eol < 0) return false;
        const size = CHUNK_SIZE.exec(this.buf.toString("latin1", 0, eol));
        if (!size) throw new ChunkedFramingError("invalid chunk size");
        this.buf = this.buf.subarray(eol + 2);
        const n = Number.parseInt(size[1]!, 16);
        if (n === 0) {
          this.inTrailers = true;
          continue;
        }
        this.chunkLeft = n;
      }
      if (this.chunkLeft > 0) {
        const n = Math.min(this.chunkLeft, this.buf.length);
        if (n === 0) return false;
        this.chunkLeft -= n;
        this.onData(this.buf.subarray(0, n));
        this.buf = this.buf.subarray(n);
        if (this.chunkLeft > 0) return false;
      }
      // chunkLeft === 0: the CRLF after the data
      if (this.buf.length < 2) return false;
      if (this.buf[0] !== CR || this.buf[1] !== LF) throw new ChunkedFramingError("chunk data not followed by CRLF");
      this.buf = this.buf.subarray(2);
      this.chunkLeft = -1;
    }
  }
}
