// The reference HTTP/1.1 response parser for the differential fuzz of the proxy's own parser: llhttp, the
// parser node:http uses, in the WebAssembly build that undici ships (undici/lib/llhttp). Default
// settings, no lenient flags: the same strictness node's client has.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** llhttp's error numbers that matter here (undici/lib/llhttp/constants.js). */
const OK = 0;
const PAUSED = 21;
const PAUSED_UPGRADE = 22;
const TYPE_RESPONSE = 2;
/** on_headers_complete's answer that tells llhttp the message has no body (a response to HEAD). */
const SKIP_BODY = 1;

interface LlhttpExports {
  memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(ptr: number): void;
  llhttp_alloc(type: number): number;
  llhttp_free(ptr: number): void;
  llhttp_execute(parser: number, data: number, len: number): number;
  llhttp_finish(parser: number): number;
  llhttp_get_error_pos(parser: number): number;
  llhttp_get_error_reason(parser: number): number;
}

/** What llhttp made of a response stream, up to the end of the first final (non-1xx) response. */
export type ReferenceOutcome =
  | { kind: "response"; status: number; statusText: string; headers: [string, string][]; body: Buffer; keepAlive: boolean; rest: Buffer }
  | { kind: "upgrade"; status: number }
  | { kind: "error"; reason: string }
  /** The bytes ended before the response did (and no EOF was signalled). */
  | { kind: "incomplete" };

interface Message {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Buffer[];
  keepAlive: boolean;
  complete: boolean;
}

let current: ParserRun | null = null;
let instance: LlhttpExports | null = null;

function bytesAt(at: number, len: number): Buffer {
  return Buffer.from(new Uint8Array(llhttp().memory.buffer, at, len));
}

function llhttp(): LlhttpExports {
  if (instance) return instance;
  const module = new WebAssembly.Module(require("undici/lib/llhttp/llhttp-wasm.js") as Uint8Array<ArrayBuffer>);
  const run = () => current!;
  const created = new WebAssembly.Instance(module, {
    env: {
      wasm_on_url: () => 0,
      wasm_on_message_begin: () => run().begin(),
      wasm_on_status: (_p: number, at: number, len: number) => run().status(bytesAt(at, len)),
      wasm_on_header_field: (_p: number, at: number, len: number) => run().field(bytesAt(at, len)),
      wasm_on_header_value: (_p: number, at: number, len: number) => run().value(bytesAt(at, len)),
      wasm_on_headers_complete: (_p: number, status: number, _upgrade: number, keepAlive: number) => run().headersComplete(status, keepAlive === 1),
      wasm_on_body: (_p: number, at: number, len: number) => run().bodyBytes(bytesAt(at, len)),
      wasm_on_message_complete: () => run().messageComplete(),
    },
  });
  instance = created.exports as unknown as LlhttpExports;
  return instance;
}

class ParserRun {
  readonly messages: Message[] = [];
  private field_ = "";
  private value_ = "";
  private inValue = false;
  /** Fields after the head are trailers: the proxy drops them, so they are not compared. */
  private inTrailers = false;
  finalDone = false;

  constructor(private readonly method: string) {}

  private get last(): Message {
    return this.messages[this.messages.length - 1]!;
  }

  begin(): number {
    this.messages.push({ status: 0, statusText: "", headers: [], body: [], keepAlive: false, complete: false });
    this.field_ = "";
    this.value_ = "";
    this.inValue = false;
    this.inTrailers = false;
    return 0;
  }

  status(bytes: Buffer): number {
    this.last.statusText += bytes.toString("latin1");
    return 0;
  }

  field(bytes: Buffer): number {
    if (this.inTrailers) return 0;
    if (this.inValue) this.flush();
    this.field_ += bytes.toString("latin1");
    return 0;
  }

  value(bytes: Buffer): number {
    if (this.inTrailers) return 0;
    this.inValue = true;
    this.value_ += bytes.toString("latin1");
    return 0;
  }

  private flush(): void {
    this.last.headers.push([this.field_, this.value_]);
    this.field_ = "";
    this.value_ = "";
    this.inValue = false;
  }

  headersComplete(status: number, keepAlive: boolean): number {
    if (this.inValue || this.field_) this.flush();
    this.inTrailers = true;
    this.last.status = status;
    this.last.keepAlive = keepAlive;
    return this.method === "HEAD" && status >= 200 ? SKIP_BODY : 0;
  }

  bodyBytes(bytes: Buffer): number {
    this.last.body.push(bytes);
    return 0;
  }

  messageComplete(): number {
    this.last.complete = true;
    if (this.last.status >= 200) {
      this.finalDone = true;
      // Stop here so the bytes after the response are left over, as the proxy's parser leaves them.
      return PAUSED;
    }
    return 0;
  }
}

/** Parses `segments` (one llhttp_execute each) as the response to `method`; `eof` signals the close after them. */
export function referenceParse(method: string, segments: Buffer[], eof: boolean): ReferenceOutcome {
  const ll = llhttp();
  const parser = ll.llhttp_alloc(TYPE_RESPONSE);
  const run = new ParserRun(method);
  const total = segments.reduce((n, s) => n + s.length, 0);
  const buf = ll.malloc(Math.max(total, 1));
  try {
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      if (segment.length === 0) continue;
      new Uint8Array(ll.memory.buffer, buf, segment.length).set(segment);
      current = run;
      let ret: number;
      try {
        ret = ll.llhttp_execute(parser, buf, segment.length);
      } finally {
        current = null;
      }
      if (ret === OK) continue;
      const final = run.messages.at(-1);
      if (ret === PAUSED_UPGRADE && final) return { kind: "upgrade", status: final.status };
      if (ret === PAUSED && run.finalDone) {
        const consumed = ll.llhttp_get_error_pos(parser) - buf;
        return done(run, Buffer.concat([segment.subarray(consumed), ...segments.slice(i + 1)]));
      }
      return { kind: "error", reason: errorReason(ll, parser, ret) };
    }
    if (!eof) return { kind: "incomplete" };
    current = run;
    let ret: number;
    try {
      ret = ll.llhttp_finish(parser);
    } finally {
      current = null;
    }
    if (run.finalDone) return done(run, Buffer.alloc(0));
    if (ret === PAUSED_UPGRADE && run.messages.length) return { kind: "upgrade", status: run.messages.at(-1)!.status };
    return { kind: "error", reason: ret === OK ? "closed before a response" : errorReason(ll, parser, ret) };
  } finally {
    ll.free(buf);
    ll.llhttp_free(parser);
  }
}

function done(run: ParserRun, rest: Buffer): ReferenceOutcome {
  const final = run.messages.at(-1)!;
  return {
    kind: "response",
    status: final.status,
    statusText: final.statusText,
    headers: final.headers,
    body: Buffer.concat(final.body),
    keepAlive: final.keepAlive,
    rest,
  };
}

function errorReason(ll: LlhttpExports, parser: number, ret: number): string {
  const ptr = ll.llhttp_get_error_reason(parser);
  if (!ptr) return `llhttp error ${ret}`;
  const view = new Uint8Array(ll.memory.buffer, ptr);
  return Buffer.from(view.subarray(0, view.indexOf(0))).toString("latin1");
}
