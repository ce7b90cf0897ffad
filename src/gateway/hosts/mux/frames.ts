// The host protocol's wire frames (docs/gateway-hosts.md, Host protocol): one binary WebSocket message is one
// frame, `[type u8][stream u32 BE][payload]`. JSON only in HELLO, HEAD, RESET, PING and PONG payloads;
// DATA is raw body bytes, CREDIT a u32. Decoding never throws past `decodeFrame`: a bad frame is a
// MuxProtocolError, which the connection turns into a 1002 close.

export const FRAME = { HELLO: 1, HEAD: 2, DATA: 3, END: 4, RESET: 5, CREDIT: 6, PING: 7, PONG: 8 } as const;
export type FrameType = (typeof FRAME)[keyof typeof FRAME];
const NAMES: Record<number, string> = Object.fromEntries(Object.entries(FRAME).map(([name, type]) => [type, name]));

export const HEADER_BYTES = 5;
/** Body bytes per DATA frame. */
export const MAX_DATA = 64 * 1024;
/** JSON payload bytes of a HELLO, HEAD, RESET, PING or PONG frame. */
export const MAX_JSON = 64 * 1024;
/** The largest WebSocket message either side accepts (Bun.serve's maxPayloadLength too). */
export const MAX_FRAME = HEADER_BYTES + Math.max(MAX_DATA, MAX_JSON);
/** Unacknowledged body bytes per stream and direction (the receiver's buffer bound). */
export const WINDOW = 256 * 1024;
/** Above this many bytes buffered in the WebSocket, body producers wait for it to drain. */
export const SOCKET_HIGH_WATER = 1024 * 1024;
/** Concurrent exchanges per connection (both directions together); more are refused with RESET. */
export const MAX_STREAMS = 1024;
/** The WebSocket subprotocol: it names the framing; versions are negotiated in HELLO. */
export const SUBPROTOCOL = "agent-host.1";

/** Close codes of the host protocol (1002 is WebSocket's own "protocol error"). */
export const CLOSE = { NORMAL: 1000, GOING_AWAY: 1001, PROTOCOL_ERROR: 1002, INTERNAL: 1011, VERSION_MISMATCH: 4001, NO_HEARTBEAT: 4002, NO_HELLO: 4003 } as const;

export class MuxProtocolError extends Error {
  override name = "MuxProtocolError";
}

export interface Frame {
  type: FrameType;
  stream: number;
  payload: Uint8Array;
}

export function frameName(type: number): string {
  return NAMES[type] ?? `type ${type}`;
}

export function encodeFrame(type: FrameType, stream: number, payload?: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(HEADER_BYTES + (payload?.byteLength ?? 0));
  bytes[0] = type;
  new DataView(bytes.buffer).setUint32(1, stream);
  if (payload) bytes.set(payload, HEADER_BYTES);
  return bytes;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export function encodeJsonFrame(type: FrameType, stream: number, value: unknown): Uint8Array {
  const payload = encoder.encode(JSON.stringify(value));
  if (payload.byteLength > MAX_JSON) throw new MuxProtocolError(`${frameName(type)} is ${payload.byteLength} bytes; at most ${MAX_JSON} are allowed`);
  return encodeFrame(type, stream, payload);
}

export function encodeCredit(stream: number, bytes: number): Uint8Array {
  const payload = new Uint8Array(4);
  new DataView(payload.buffer).setUint32(0, bytes);
  return encodeFrame(FRAME.CREDIT, stream, payload);
}

export function decodeFrame(bytes: Uint8Array): Frame {
  if (bytes.byteLength < HEADER_BYTES) throw new MuxProtocolError(`a frame of ${bytes.byteLength} bytes is shorter than its ${HEADER_BYTES}-byte header`);
  if (bytes.byteLength > MAX_FRAME) throw new MuxProtocolError(`a frame of ${bytes.byteLength} bytes exceeds ${MAX_FRAME}`);
  const type = bytes[0]!;
  if (!NAMES[type]) throw new MuxProtocolError(`unknown frame type ${type}`);
  const stream = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1);
  const payload = bytes.subarray(HEADER_BYTES);
  const limit = type === FRAME.DATA ? MAX_DATA : type === FRAME.CREDIT ? 4 : type === FRAME.END ? 0 : MAX_JSON;
  if (payload.byteLength > limit) throw new MuxProtocolError(`${frameName(type)} payload of ${payload.byteLength} bytes exceeds ${limit}`);
  if (type === FRAME.CREDIT && payload.byteLength !== 4) throw new MuxProtocolError(`CREDIT payload must be 4 bytes, got ${payload.byteLength}`);
  const onStreamZero = type === FRAME.HELLO || type === FRAME.PING || type === FRAME.PONG;
  if (onStreamZero !== (stream === 0)) throw new MuxProtocolError(`${frameName(type)} on stream ${stream}: ${onStreamZero ? "it belongs on stream 0" : "stream 0 carries only HELLO, PING and PONG"}`);
  return { type: type as FrameType, stream, payload };
}

export function creditOf(frame: Frame): number {
  return new DataView(frame.payload.buffer, frame.payload.byteOffset, 4).getUint32(0);
}

/** The JSON object in a frame's payload; anything else is a protocol error naming the frame. */
export function jsonOf(frame: Frame): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(frame.payload));
  } catch {
    throw new MuxProtocolError(`${frameName(frame.type)} on stream ${frame.stream} is not UTF-8 JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new MuxProtocolError(`${frameName(frame.type)} on stream ${frame.stream} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** WebSocket close reasons are at most 123 bytes of UTF-8. */
export function closeReason(reason: string): string {
  const bytes = encoder.encode(reason);
  if (bytes.byteLength <= 123) return reason;
  let cut = 120;
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return new TextDecoder().decode(bytes.subarray(0, cut)) + "...";
}
