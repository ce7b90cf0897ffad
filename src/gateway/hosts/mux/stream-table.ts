// The exchanges open on one mux connection: each is a stream with its two directions' state, its credit
// and whoever waits on it. The table hands out this side's stream ids (the host odd, the front even),
// checks the peer's, and ends exchanges, completed or failed.
import type { InBody } from "./body.ts";
import { MuxProtocolError, WINDOW } from "./frames.ts";
import type { MuxSide } from "./hello.ts";

export interface Stream {
  id: number;
  /** Opened by this side (a fetch) or by the peer (served). */
  local: boolean;
  /** The body arriving from the peer; undefined before its HEAD or when it has none. */
  in?: InBody;
  /** Whether the peer still owes us a HEAD (local streams until the response head arrives). */
  awaitingHead: boolean;
  /** Whether the peer's direction is complete (END received, or its HEAD said no body). */
  inDone: boolean;
  outDone: boolean;
  reader?: ReadableStreamDefaultReader<Uint8Array | string>;
  credit: number;
  creditWaiters: (() => void)[];
  ended: boolean;
  respond?: { resolve(response: Response): void; reject(error: unknown): void };
  abort?: AbortController;
  /** A served exchange that arrived before serve() was called. */
  request?: Request;
  /** What aborts this exchange when the fetch's signal fires. */
  unlisten?: () => void;
}

/** The highest stream id either side may open. */
const LAST_ID = 0xffff_fffe;

export class StreamTable {
  private readonly open = new Map<number, Stream>();
  /** The id this side opens next. */
  private nextId: number;
  /** The highest stream id the peer has opened. */
  private peerLast = 0;

  constructor(
    private readonly side: MuxSide,
    /** Concurrent exchanges (both directions); more are refused. */
    readonly max: number,
  ) {
    this.nextId = side === "host" ? 1 : 2;
  }

  get size(): number {
    return this.open.size;
  }

  get full(): boolean {
    return this.open.size >= this.max;
  }

  get(id: number): Stream | undefined {
    return this.open.get(id);
  }

  all(): Stream[] {
    return [...this.open.values()];
  }

  /** The id the next local exchange gets, or undefined when this side's ids are used up. */
  nextLocalId(): number | undefined {
    return this.nextId > LAST_ID ? undefined : this.nextId;
  }

  /** Opens the next local exchange (a fetch), awaiting the peer's response HEAD. */
  openLocal(): Stream {
    const stream = newStream(this.nextId, true);
    this.nextId += 2;
    stream.awaitingHead = true;
    this.open.set(stream.id, stream);
    return stream;
  }

  /** Whether `id` is one the peer opens (parity). */
  isPeers(id: number): boolean {
    return id % 2 === (this.side === "host" ? 0 : 1);
  }

  /** The peer opens stream `id` (its HEAD arrived): ids only go up. */
  peerOpened(id: number): void {
    if (id <= this.peerLast) throw new MuxProtocolError(`HEAD opening stream ${id}, not above the last opened ${this.peerLast}`);
    this.peerLast = id;
  }

  /** A stream record for the peer's exchange `id`, not in the table until `add`. */
  peerStream(id: number): Stream {
    return newStream(id, false);
  }

  add(stream: Stream): void {
    this.open.set(stream.id, stream);
  }

  /** Whether stream `id` was opened once (and is over now if not in the table). */
  wasOpened(id: number): boolean {
    return this.isPeers(id) ? id <= this.peerLast : id < this.nextId;
  }

  /** Ends an exchange whose both directions are complete (and whose response head arrived). */
  settleIfDone(stream: Stream): void {
    if (stream.ended || stream.awaitingHead || !stream.inDone || !stream.outDone) return;
    stream.ended = true;
    stream.unlisten?.();
    this.open.delete(stream.id);
  }

  /** Ends an exchange that did not complete: every waiter on it learns `error`. */
  finish(stream: Stream, error: unknown): void {
    if (stream.ended) return;
    stream.ended = true;
    this.open.delete(stream.id);
    stream.unlisten?.();
    stream.respond?.reject(error);
    stream.respond = undefined;
    // A body whose END arrived keeps its bytes for its reader: the exchange ended after it was complete.
    if (!stream.inDone) stream.in?.fail(error);
    stream.abort?.abort(error);
    wakeCreditWaiters(stream);
    stream.reader?.cancel(error).catch(() => {});
  }
}

export function wakeCreditWaiters(stream: Stream): void {
  const waiters = stream.creditWaiters;
  stream.creditWaiters = [];
  for (const wake of waiters) wake();
}

function newStream(id: number, local: boolean): Stream {
  return { id, local, awaitingHead: false, inDone: false, outDone: false, credit: WINDOW, creditWaiters: [], ended: false };
}
