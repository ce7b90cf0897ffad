// Events a socket adapter received before its MuxConnection listened, replayed in order when it does.
import type { MuxSocketEvents } from "./socket.ts";

export class EarlyEvents {
  private events?: MuxSocketEvents;
  private early: ((events: MuxSocketEvents) => void)[] = [];

  listen(events: MuxSocketEvents): void {
    this.events = events;
    const early = this.early;
    this.early = [];
    for (const deliver of early) deliver(events);
  }

  emit(deliver: (events: MuxSocketEvents) => void): void {
    if (this.events) deliver(this.events);
    else this.early.push(deliver);
  }
}
