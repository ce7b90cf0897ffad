// Serves the ACP agent over this process's stdin/stdout (newline-delimited JSON-RPC). stdout carries
// the protocol only: every diagnostic goes to stderr. Ends when the editor closes stdin.
//
// Lines are framed here before the SDK sees them: the SDK ends the whole connection on a line over its
// limit (and `agent acp` then exited 0 without a word). A line over MAX_LINE_BYTES is skipped to its
// newline without being held in memory, answered with a JSON-RPC Invalid Request error (id null: its id
// was never read), and serving goes on.
import { ndJsonStream, type AgentApp } from "@agentclientprotocol/sdk";
import { Readable, Writable } from "node:stream";

/** The longest message line taken (the SDK's own default limit). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;
const NEWLINE = 0x0a;

/** The JSON-RPC answer to a skipped line. */
export function tooLongError(bytes: number, limit: number): string {
  const message = `Invalid Request: the message is ${bytes} bytes long, over the limit of ${limit} bytes for one line; it was skipped`;
  return `${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message } })}\n`;
}

function joined(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Passes whole lines (newline included) of at most `limit` bytes; reports each longer one instead. */
export function lineLimit(limit: number, onTooLong: (bytes: number) => void): TransformStream<Uint8Array, Uint8Array> {
  let parts: Uint8Array[] = [];
  let length = 0;
  let skipped = -1;
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline === -1 ? chunk.length : newline + 1;
        const piece = chunk.subarray(start, end);
        if (skipped >= 0) skipped += piece.length;
        else if (length + piece.length - (newline === -1 ? 0 : 1) > limit) {
          skipped = length + piece.length;
          parts = [];
          length = 0;
        } else {
          parts.push(piece);
          length += piece.length;
        }
        if (newline !== -1) {
          if (skipped >= 0) onTooLong(skipped - 1);
          else controller.enqueue(joined(parts, length));
          parts = [];
          length = 0;
          skipped = -1;
        }
        start = end;
      }
    },
    flush(controller) {
      if (skipped >= 0) onTooLong(skipped);
      else if (length > 0) controller.enqueue(joined(parts, length));
    },
  });
}

export async function serveStdio(app: AgentApp, stdin: Readable = process.stdin, stdout: Writable = process.stdout, maxLineBytes: number = MAX_LINE_BYTES): Promise<void> {
  // One writer for the SDK's messages and the over-long-line answers, so lines never interleave.
  const writer = (Writable.toWeb(stdout) as WritableStream<Uint8Array>).getWriter();
  let queue: Promise<void> = Promise.resolve();
  const write = (bytes: Uint8Array) => (queue = queue.then(() => writer.write(bytes)));
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => write(chunk),
    close: () => queue.then(() => writer.close()),
    abort: (reason) => writer.abort(reason),
  });
  const encoder = new TextEncoder();
  const input = (Readable.toWeb(stdin) as unknown as ReadableStream<Uint8Array>).pipeThrough(
    lineLimit(maxLineBytes, (bytes) => void write(encoder.encode(tooLongError(bytes, maxLineBytes))).catch(() => {})),
  );
  // The SDK's limit sits above ours, so it never sees a line it would end the connection for.
  const stream = ndJsonStream(output, input, { maxMessageBytes: maxLineBytes + 1 });
  const connection = app.connect(stream);
  await connection.closed;
}
