// A stand-in for `agent daemon` whose SSE stream resumes like the real daemon's GET /events: every event
// carries an id, and a request with `Last-Event-ID: N` continues at N+1 (no gap, no repeat). The stream
// is numbered per daemon process, so a resumed stream that reached another daemon would show it. Speaks
// the launch contract (ready line on stdout, GET /health with the credential's token). Routes: /health,
// /session/stop, /events (SSE, `retry: 100` so that clients reconnect quickly), /whoami (pid); anything
// else echoes the method and path.
// Usage: bun resumable-sse-daemon.ts daemon --session-dir D --credential-file F [--config C]
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const credFile = args[args.indexOf("--credential-file") + 1]!;
const token = (JSON.parse(readFileSync(credFile, "utf8")) as { token: string }).token;
process.on("SIGTERM", () => process.exit(0));

function events(lastId: number): Response {
  let timer: ReturnType<typeof setInterval>;
  let n = lastId;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode("retry: 100\n\n"));
      timer = setInterval(() => {
        n++;
        controller.enqueue(encoder.encode(`id: ${n}\ndata: ${JSON.stringify({ n, pid: process.pid })}\n\n`));
      }, 20);
    },
    cancel() {
      clearInterval(timer);
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch(req, srv) {
    if (req.headers.get("authorization") !== `Bearer ${token}`) return new Response('{"error":"unauthorized"}', { status: 401 });
    const url = new URL(req.url);
    switch (url.pathname) {
      case "/health":
        return Response.json({ status: "ok", daemon_epoch: "ep_resumable" });
      case "/session/stop":
        setTimeout(() => process.exit(0), 50);
        return Response.json({ status: "stopped" });
      case "/whoami":
        return Response.json({ pid: process.pid });
      case "/events": {
        srv.timeout(req, 0);
        const last = req.headers.get("last-event-id");
        if (last !== null && !/^\d+$/.test(last)) return Response.json({ error: "invalid_cursor" }, { status: 400 });
        return events(last === null ? 0 : Number(last));
      }
    }
    return Response.json({ method: req.method, path: url.pathname, pid: process.pid });
  },
});
process.stdout.write(`${JSON.stringify({ port: server.port, pid: process.pid, epoch: "ep_resumable" })}\n`);
setInterval(() => {}, 1 << 30);
