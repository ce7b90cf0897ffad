// Synchronous decoding of recorded streams, cut into arbitrary chunks, for parser tests.
import { ResponseAssembler } from "../../src/providers/assemble.ts";
import { createDecoder } from "../../src/providers/client.ts";
import type { AssembledResponse, StreamEvent } from "../../src/providers/events.ts";
import { PROTOCOL_INFO, type ProviderProtocol } from "../../src/providers/protocols.ts";
import { SseDecoder } from "../../src/providers/sse.ts";

export interface DecodeResult {
  events: StreamEvent[];
  assembled: AssembledResponse;
  error: unknown;
}

export function decodeChunks(protocol: ProviderProtocol, chunks: Uint8Array[]): DecodeResult {
  const info = PROTOCOL_INFO[protocol];
  const events: StreamEvent[] = [];
  const assembler = new ResponseAssembler();
  const decoder = createDecoder({ dialect: info.baseDialect, info }, (e) => {
    events.push(e);
    assembler.push(e);
  });
  const sse = new SseDecoder((ev, data) => decoder.onSse(ev, data));
  let error: unknown = null;
  try {
    for (const c of chunks) sse.push(c);
    sse.end();
    decoder.end();
  } catch (e) {
    error = e;
  }
  return { events, assembled: assembler.snapshot(), error };
}

export function bytesOf(frames: string[] | string): Uint8Array {
  return new TextEncoder().encode(Array.isArray(frames) ? frames.join("") : frames);
}

/** Every two-way split of `bytes` (at each byte boundary), plus one-byte-at-a-time. */
export function* everySplit(bytes: Uint8Array): Generator<Uint8Array[]> {
  for (let i = 0; i <= bytes.length; i++) yield [bytes.subarray(0, i), bytes.subarray(i)];
  yield Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
}
