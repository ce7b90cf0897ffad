// The connection-wide bound: bodies wait while the WebSocket holds more than SOCKET_HIGH_WATER bytes, and
// resume on its drain. A socket pair in memory stands in for the WebSocket so the test can stop delivery
// (a peer not reading) and see exactly what was buffered; it behaves as Bun's server socket does: send
// queues, bufferedAmount counts what is queued, drain fires once the queue has been written out.
import { expect, test } from "bun:test";
import { MuxConnection } from "../../../src/gateway/hosts/mux/connection.ts";
import type { MuxSocket, MuxSocketEvents } from "../../../src/gateway/hosts/mux/socket.ts";
import { MAX_DATA, SOCKET_HIGH_WATER, WINDOW } from "../../../src/gateway/hosts/mux/frames.ts";
import { EarlyEvents } from "../../../src/gateway/hosts/mux/socket-events.ts";

class MemorySocket implements MuxSocket {
  peer!: MemorySocket;
  private readonly events = new EarlyEvents();
  private queue: Uint8Array[] = [];
  bufferedAmount = 0;
  maxBuffered = 0;
  paused = false;
  private scheduled = false;

  send(bytes: Uint8Array): number {
    this.queue.push(bytes);
    this.bufferedAmount += bytes.byteLength;
    this.maxBuffered = Math.max(this.maxBuffered, this.bufferedAmount);
    this.schedule();
    return -1;
  }

  close(code: number, reason: string): void {
    this.events.emit((e) => e.close(code, reason));
    this.peer.events.emit((e) => e.close(code, reason));
  }

  listen(events: MuxSocketEvents): void {
    this.events.listen(events);
  }

  resume(): void {
    this.paused = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.paused) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      if (this.paused) return;
      const queue = this.queue;
      this.queue = [];
      for (const bytes of queue) {
        this.bufferedAmount -= bytes.byteLength;
        this.peer.events.emit((e) => e.message(bytes));
      }
      this.events.emit((e) => e.drain());
    }, 0);
  }
}

test("16 endless responses to a peer that stops reading: the socket holds at most the high water mark plus one frame; all resumes on drain", async () => {
  const hostSocket = new MemorySocket();
  const frontSocket = new MemorySocket();
  hostSocket.peer = frontSocket;
  frontSocket.peer = hostSocket;
  const [host, front] = await Promise.all([
    MuxConnection.open(hostSocket, { side: "host", name: "mem-host" }),
    MuxConnection.open(frontSocket, { side: "front", name: "mem-front" }),
  ]);
  let pulled = 0;
  host.serve(async () => new Response(new ReadableStream({ pull: (c) => ((pulled += MAX_DATA), c.enqueue(new Uint8Array(MAX_DATA))) })));
  // The front stops reading its socket: nothing the host sends is delivered.
  hostSocket.paused = true;
  const responses = Promise.all(Array.from({ length: 16 }, (_, i) => front.fetch(new Request(`http://x/${i}`))));
  for (let i = 0; i < 100 && hostSocket.bufferedAmount < SOCKET_HIGH_WATER; i++) await Bun.sleep(5);
  await Bun.sleep(100);
  // 16 streams of 256 KiB credit would put 4 MiB in the socket; the connection stops at its high water mark.
  expect(16 * WINDOW).toBeGreaterThan(2 * SOCKET_HIGH_WATER);
  expect(hostSocket.bufferedAmount).toBeGreaterThanOrEqual(SOCKET_HIGH_WATER);
  expect(hostSocket.maxBuffered).toBeLessThanOrEqual(SOCKET_HIGH_WATER + MAX_DATA + 5);
  expect(pulled).toBeLessThanOrEqual(SOCKET_HIGH_WATER + 16 * 2 * MAX_DATA);
  hostSocket.resume();
  const bodies = await responses;
  const read = await Promise.all(bodies.map(async (response) => {
    const reader = response.body!.getReader();
    let bytes = 0;
    while (bytes < 1024 * 1024) bytes += (await reader.read()).value!.byteLength;
    await reader.cancel();
    return bytes;
  }));
  expect(read.every((bytes) => bytes >= 1024 * 1024)).toBe(true);
  host.close();
  front.close();
});
