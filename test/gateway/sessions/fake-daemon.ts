// A stand-in for `agent daemon` for supervisor fault and proxy tests. It speaks the launch contract (ready
// line on stdout, GET /health with the credential's token) but never reads its bootstrap file.
//   --mode=ignore-term     ignores SIGTERM and never answers the terminate request (default: exits on both)
// Routes: /close-listener closes its port (the process stays); /stall-health makes every later GET /health
// wait forever (the port accepts, nothing answers; counted in /stats as health_stalled); /redirect answers 302; /teapot 418 with a
// header; /sse streams ticks until the client goes away (counted in /stats); /slow answers after 10 s
// unless its client goes away first (counted in /stats); /env answers the process's environment; anything else echoes the
// request (method, path, query, headers, body).
// Usage: bun fake-daemon.ts [--mode=M] daemon --session-dir D --credential-file F [--config C]
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const mode = args.find((a) => a.startsWith("--mode="))?.slice(7) ?? "normal";
const credFile = args[args.indexOf("--credential-file") + 1]!;
const token = (JSON.parse(readFileSync(credFile, "utf8")) as { token: string }).token;
const stats = { sse_opened: 0, sse_cancelled: 0, slow_opened: 0, slow_abandoned: 0, health_stalled: 0 };
let healthStalled = false;

process.on("SIGTERM", () => {
  if (mode !== "ignore-term") process.exit(0);
});

function sse(): Response {
  stats.sse_opened++;
  let timer: ReturnType<typeof setInterval>;
  let n = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(": open\n\n"));
      timer = setInterval(() => controller.enqueue(new TextEncoder().encode(`id: ${++n}\ndata: tick ${n}\n\n`)), 20);
    },
    cancel() {
      clearInterval(timer);
      stats.sse_cancelled++;
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req, srv) {
    if (req.headers.get("authorization") !== `Bearer ${token}`) return new Response('{"error":"unauthorized"}', { status: 401 });
    const url = new URL(req.url);
    switch (url.pathname) {
      case "/health":
        if (healthStalled) {
          stats.health_stalled++;
          srv.timeout(req, 0);
          return new Promise<Response>(() => {});
        }
        return Response.json({ status: "ok", daemon_epoch: "ep_fake" });
      case "/session/stop":
        if (mode === "ignore-term") return new Promise<Response>(() => {}); // never answers
        setTimeout(() => process.exit(0), 50);
        return Response.json({ status: "stopped" });
      case "/stall-health":
        healthStalled = true;
        return Response.json({ stalled: true });
      case "/close-listener":
        setTimeout(() => server.stop(true), 10);
        return Response.json({ closing: true });
      case "/redirect":
        return new Response(null, { status: 302, headers: { Location: "http://127.0.0.1:1/elsewhere" } });
      case "/teapot":
        return new Response("short and stout", { status: 418, headers: { "X-Daemon": "yes", "Content-Type": "text/plain" } });
      case "/sse":
        srv.timeout(req, 0);
        return sse();
      case "/slow":
        stats.slow_opened++;
        return new Promise<Response>((resolve) => {
          const timer = setTimeout(() => resolve(Response.json({ slow: true })), Number(url.searchParams.get("ms") ?? 10_000));
          req.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            stats.slow_abandoned++;
            resolve(new Response(null, { status: 499 }));
          });
        });
      case "/stats":
        return Response.json(stats);
      case "/env":
        return Response.json(process.env);
    }
    const body = new Uint8Array(await req.arrayBuffer());
    return Response.json({ method: req.method, path: url.pathname, search: url.search, headers: Object.fromEntries(req.headers), body_sha256: new Bun.CryptoHasher("sha256").update(body).digest("hex"), body_length: body.length });
  },
});
process.stdout.write(`${JSON.stringify({ port: server.port, pid: process.pid, epoch: "ep_fake" })}\n`);
// The process stays alive with its port closed.
setInterval(() => {}, 1 << 30);
