// What each frame from the peer does once HELLO is done: PING is answered, a HEAD opens an exchange (a
// request to serve) or answers one of ours (the response), DATA and END feed the stream's body, CREDIT
// lets its sender go on, RESET fails it. A frame that breaks a rule throws MuxProtocolError (the
// connection closes with 1002); late frames of an exchange already over are dropped.
import { InBody } from "./body.ts";
import { MuxResetError } from "./errors.ts";
import { FRAME, MuxProtocolError, WINDOW, creditOf, encodeCredit, encodeFrame, encodeJsonFrame, frameName, jsonOf, type Frame } from "./frames.ts";
import { parseRequestHead, parseResponseHead } from "./heads.ts";
import { wakeCreditWaiters, type Stream, type StreamTable } from "./stream-table.ts";

/** What dispatching needs from its connection. */
export interface FrameContext {
  readonly streams: StreamTable;
  write(bytes: Uint8Array): void;
  /** Aborts an exchange from this side: RESET to the peer, then everything local fails with `error`. */
  reset(stream: Stream, reason: string, error: unknown): void;
  /** A request the peer opened, for the serve handler. */
  serve(stream: Stream, request: Request): void;
  /** "the host NAME" / "the front NAME", for messages. */
  peerText(): string;
}

export function dispatchFrame(ctx: FrameContext, frame: Frame): void {
  switch (frame.type) {
    case FRAME.HELLO:
      throw new MuxProtocolError("a second HELLO");
    case FRAME.PING:
      ctx.write(encodeFrame(FRAME.PONG, 0, frame.payload));
      return;
    case FRAME.PONG:
      jsonOf(frame);
      return;
    case FRAME.HEAD:
      return head(ctx, frame);
  }
  const stream = ctx.streams.get(frame.stream);
  if (!stream) return unknownStream(ctx, frame);
  switch (frame.type) {
    case FRAME.DATA:
      if (!stream.in) throw new MuxProtocolError(`DATA on stream ${frame.stream}, which has no body from this side`);
      stream.in.push(frame.payload);
      return;
    case FRAME.END:
      if (!stream.in) throw new MuxProtocolError(`END on stream ${frame.stream}, which has no body from this side`);
      stream.in.end();
      stream.inDone = true;
      return ctx.streams.settleIfDone(stream);
    case FRAME.CREDIT: {
      const bytes = creditOf(frame);
      if (stream.credit + bytes > WINDOW) throw new MuxProtocolError(`CREDIT of ${bytes} on stream ${frame.stream} raises its credit above the ${WINDOW}-byte window`);
      stream.credit += bytes;
      wakeCreditWaiters(stream);
      return;
    }
    case FRAME.RESET: {
      const reason = jsonOf(frame).reason;
      const text = typeof reason === "string" ? reason.slice(0, 500) : "no reason given";
      return ctx.streams.finish(stream, new MuxResetError(`${ctx.peerText()} reset the exchange: ${text}`));
    }
  }
}

/** A frame for a stream not open: late frames of an exchange already over are dropped, others are errors. */
function unknownStream(ctx: FrameContext, frame: Frame): void {
  if (!ctx.streams.wasOpened(frame.stream)) throw new MuxProtocolError(`${frameName(frame.type)} on stream ${frame.stream}, which was never opened`);
}

function head(ctx: FrameContext, frame: Frame): void {
  const { streams } = ctx;
  const existing = streams.get(frame.stream);
  if (existing) {
    if (!existing.local || !existing.awaitingHead) throw new MuxProtocolError(`a second HEAD on stream ${frame.stream}`);
    return responseArrived(ctx, existing, frame);
  }
  if (!streams.isPeers(frame.stream)) return unknownStream(ctx, frame);
  streams.peerOpened(frame.stream);
  const head = parseRequestHead(jsonOf(frame));
  if (streams.full) {
    ctx.write(encodeJsonFrame(FRAME.RESET, frame.stream, { reason: `too many concurrent exchanges (at most ${streams.max})` }));
    return;
  }
  const stream = streams.peerStream(frame.stream);
  stream.abort = new AbortController();
  if (head.body) stream.in = inBody(ctx, stream);
  else stream.inDone = true;
  let request: Request;
  try {
    request = new Request(`http://localhost${head.path}`, { method: head.method, headers: head.headers, body: stream.in?.stream ?? null, signal: stream.abort.signal });
  } catch (error) {
    throw new MuxProtocolError(`HEAD on stream ${frame.stream} is not a valid request: ${error instanceof Error ? error.message : String(error)}`);
  }
  streams.add(stream);
  ctx.serve(stream, request);
}

function responseArrived(ctx: FrameContext, stream: Stream, frame: Frame): void {
  const head = parseResponseHead(jsonOf(frame));
  stream.awaitingHead = false;
  if (head.body) stream.in = inBody(ctx, stream);
  else stream.inDone = true;
  let response: Response;
  try {
    response = new Response(stream.in?.stream ?? null, { status: head.status, headers: head.headers });
  } catch (error) {
    throw new MuxProtocolError(`HEAD on stream ${frame.stream} is not a valid response: ${error instanceof Error ? error.message : String(error)}`);
  }
  stream.respond?.resolve(response);
  stream.respond = undefined;
  ctx.streams.settleIfDone(stream);
}

function inBody(ctx: FrameContext, stream: Stream): InBody {
  return new InBody(
    (bytes) => ctx.write(encodeCredit(stream.id, bytes)),
    (reason) => ctx.reset(stream, "cancelled by the reader", reason),
  );
}
