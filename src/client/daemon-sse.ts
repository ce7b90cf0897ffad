// A minimal SSE parser for the daemon's /events stream: yields complete events (id, event, data);
// comments (heartbeats) are reported so a follower can tell a quiet stream from a dead one.

export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage | { comment: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let at: number;
      while ((at = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        let id: string | null = null;
        let event = "message";
        let data = "";
        let fields = 0;
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          fields++;
          const colon = line.indexOf(":");
          const name = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (name === "id") id = value;
          else if (name === "event") event = value;
          else if (name === "data") data += data ? `\n${value}` : value;
        }
        if (fields === 0) yield { comment: block };
        else yield { id, event, data };
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
