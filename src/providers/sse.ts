// Server-sent events decoder that is safe at every byte boundary: UTF-8 sequences split across
// chunks (streaming TextDecoder), CRLF split between chunks, CR/LF/CRLF line ends, a leading BOM.
// Follows the WHATWG event-stream rules: comments ignored, one optional space after the colon,
// multi-line data joined with "\n", an event is dispatched on a blank line, an unterminated
// trailing event is discarded at end of stream.

export type SseHandler = (event: string, data: string) => void;

export class SseDecoder {
  private readonly decoder = new TextDecoder("utf-8");
  private buffer = "";
  private skipLeadingLf = false;
  private started = false;
  private eventType = "";
  private data = "";
  private hasData = false;

  constructor(private readonly onEvent: SseHandler) {}

  push(chunk: Uint8Array): void {
    let text = this.decoder.decode(chunk, { stream: true });
    if (text.length === 0) return;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLeadingLf) {
      this.skipLeadingLf = false;
      if (text.charCodeAt(0) === 10) text = text.slice(1);
    }
    this.buffer = this.buffer.length === 0 ? text : this.buffer + text;
    this.drain();
  }

  /** Ends the stream: flushes the decoder; an event without its closing blank line is dropped. */
  end(): void {
    const rest = this.decoder.decode();
    if (rest.length > 0) {
      this.buffer += rest;
      this.drain();
    }
    this.buffer = "";
    this.data = "";
    this.hasData = false;
    this.eventType = "";
  }

  private drain(): void {
    const buf = this.buffer;
    let pos = 0;
    const hasCr = buf.indexOf("\r") !== -1;
    for (;;) {
      let end: number;
      let next: number;
      if (!hasCr) {
        end = buf.indexOf("\n", pos);
        if (end === -1) break;
        next = end + 1;
      } else {
        const lf = buf.indexOf("\n", pos);
        const cr = buf.indexOf("\r", pos);
        if (cr === -1 || (lf !== -1 && lf < cr)) {
          if (lf === -1) break;
          end = lf;
          next = lf + 1;
        } else {
          end = cr;
          if (cr + 1 < buf.length) next = buf.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
          else {
            next = cr + 1;
            this.skipLeadingLf = true;
          }
        }
      }
      this.line(buf, pos, end);
      pos = next;
    }
    this.buffer = pos === 0 ? buf : buf.slice(pos);
  }

  private line(buf: string, start: number, end: number): void {
    if (start === end) {
      if (this.hasData) {
        const type = this.eventType.length > 0 ? this.eventType : "message";
        const data = this.data;
        this.data = "";
        this.hasData = false;
        this.eventType = "";
        this.onEvent(type, data);
      } else {
        this.eventType = "";
      }
      return;
    }
    const first = buf.charCodeAt(start);
    if (first === 58 /* : */) return;
    // Fast path for the two fields that matter.
    if (first === 100 /* d */ && buf.startsWith("data", start)) {
      const c = start + 4;
      if (c === end || buf.charCodeAt(c) === 58) {
        const v = c === end ? c : buf.charCodeAt(c + 1) === 32 ? c + 2 : c + 1;
        const value = buf.slice(Math.min(v, end), end);
        this.data = this.hasData ? this.data + "\n" + value : value;
        this.hasData = true;
        return;
      }
    }
    const colon = buf.indexOf(":", start);
    let field: string;
    let value: string;
    if (colon === -1 || colon >= end) {
      field = buf.slice(start, end);
      value = "";
    } else {
      field = buf.slice(start, colon);
      const v = buf.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1;
      value = buf.slice(Math.min(v, end), end);
    }
    if (field === "event") this.eventType = value;
    else if (field === "data") {
      this.data = this.hasData ? this.data + "\n" + value : value;
      this.hasData = true;
    }
    // `id` and `retry` are not used by model providers' one-shot streams.
  }
}
