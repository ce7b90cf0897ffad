// A local OTLP/HTTP trace receiver for tests: listens on 127.0.0.1, records every request, and decodes
// both encodings into one span shape (JSON as OTLP/JSON; protobuf with a small reader of the
// opentelemetry-proto wire format, fields numbered as in trace.proto / common.proto).

export type AttrValue = string | number | boolean;

export interface ReceivedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, AttrValue>;
  statusCode: number;
  /** Start and end, nanoseconds since the epoch. */
  startNanos: bigint;
  endNanos: bigint;
  resource: Record<string, AttrValue>;
}

export interface ReceivedRequest {
  path: string;
  contentType: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface OtlpReceiver {
  url: string;
  requests: ReceivedRequest[];
  spans(): ReceivedSpan[];
  /** Resolves once spans matching `done` arrived (polled; the exporter sends in batches). */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  stop(): void;
}

/** `failFirst`: statuses answered (with `Retry-After: 0`) to the first requests, whose spans are then not counted. */
export function startOtlpReceiver(options: { failFirst?: number[] } = {}): OtlpReceiver {
  const requests: ReceivedRequest[] = [];
  const failures = [...(options.failFirst ?? [])];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = new Uint8Array(await request.arrayBuffer());
      const failure = failures.shift();
      if (failure !== undefined) return new Response("try again", { status: failure, headers: { "retry-after": "0" } });
      requests.push({ path: new URL(request.url).pathname, contentType: request.headers.get("content-type") ?? "", headers: Object.fromEntries(request.headers), body });
      const json = (request.headers.get("content-type") ?? "").includes("json");
      return new Response(json ? "{}" : new Uint8Array(), { headers: { "content-type": json ? "application/json" : "application/x-protobuf" } });
    },
  });
  const spans = () => requests.flatMap((r) => (r.contentType.includes("json") ? decodeJson(r.body) : decodeProtobuf(r.body)));
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    spans,
    async waitFor(done, timeoutMs = 15000) {
      const until = Date.now() + timeoutMs;
      while (!done(spans())) {
        if (Date.now() > until) throw new Error(`spans not received in time; got: ${spans().map((s) => s.name).join(", ") || "none"}`);
        await Bun.sleep(25);
      }
      return spans();
    },
    stop: () => void server.stop(true),
  };
}

// ---- OTLP/JSON ----

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

function decodeJson(body: Uint8Array): ReceivedSpan[] {
  const doc = JSON.parse(new TextDecoder().decode(body)) as {
    resourceSpans?: { resource?: { attributes?: JsonKeyValue[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
  };
  const out: ReceivedSpan[] = [];
  for (const rs of doc.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          traceId: String(s.traceId ?? ""),
          spanId: String(s.spanId ?? ""),
          parentSpanId: String(s.parentSpanId ?? ""),
          attributes: jsonAttributes(s.attributes as JsonKeyValue[]),
          statusCode: Number((s.status as { code?: number } | undefined)?.code ?? 0),
          startNanos: BigInt(String(s.startTimeUnixNano ?? 0)),
          endNanos: BigInt(String(s.endTimeUnixNano ?? 0)),
          resource,
        });
      }
    }
  }
  return out;
}

// ---- OTLP/protobuf ----

type Field = { no: number; wire: number; value: bigint | Uint8Array };

function readFields(buf: Uint8Array): Field[] {
  const fields: Field[] = [];
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) fields.push({ no, wire, value: varint() });
    else if (wire === 1) {
      fields.push({ no, wire, value: buf.slice(i, i + 8) });
      i += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      fields.push({ no, wire, value: buf.slice(i, i + len) });
      i += len;
    } else if (wire === 5) {
      fields.push({ no, wire, value: buf.slice(i, i + 4) });
      i += 4;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return fields;
}

const text = (v: Field["value"]) => new TextDecoder().decode(v as Uint8Array);
const hex = (v: Field["value"]) => Buffer.from(v as Uint8Array).toString("hex");
const fixed64 = (v: Field["value"] | undefined) => (v ? new DataView((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, 8).getBigUint64(0, true) : 0n);
const sub = (fields: Field[], no: number) => fields.filter((f) => f.no === no).map((f) => readFields(f.value as Uint8Array));

function protoAttributes(list: Field[][]): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const kv of list) {
    const key = text(kv.find((f) => f.no === 1)!.value);
    const any = sub(kv, 2)[0] ?? [];
    const v = any[0];
    if (!v) continue;
    if (v.no === 1) out[key] = text(v.value);
    else if (v.no === 2) out[key] = v.value === 1n;
    else if (v.no === 3) out[key] = Number(v.value as bigint);
    else if (v.no === 4) out[key] = new DataView((v.value as Uint8Array).buffer).getFloat64(0, true);
  }
  return out;
}

function decodeProtobuf(body: Uint8Array): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of sub(readFields(body), 1)) {
    const resource = protoAttributes(sub(sub(rs, 1)[0] ?? [], 1));
    for (const ss of sub(rs, 2)) {
      for (const s of sub(ss, 2)) {
        const one = (no: number) => s.find((f) => f.no === no)?.value;
        const status = sub(s, 15)[0] ?? [];
        out.push({
          name: text(one(5) ?? new Uint8Array()),
          kind: Number(one(6) ?? 0n),
          traceId: hex(one(1) ?? new Uint8Array()),
          spanId: hex(one(2) ?? new Uint8Array()),
          parentSpanId: hex(one(4) ?? new Uint8Array()),
          attributes: protoAttributes(sub(s, 9)),
          statusCode: Number(status.find((f) => f.no === 3)?.value ?? 0n),
          startNanos: fixed64(one(7)),
          endNanos: fixed64(one(8)),
          resource,
        });
      }
    }
  }
  return out;
}
