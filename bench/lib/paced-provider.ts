// A Chat Completions (wire B) server in another process that streams every answer the way a model does:
// one chunk at a time, `gapMs` apart, so each chunk reaches the engine in its own event-loop turn (the
// built-in scripted provider yields a whole answer in one burst of synchronous work).
import { resolve } from "node:path";

export async function pacedProvider(text: string, gapMs: number): Promise<{ base: string; stop(): void }> {
  const script = `
    import { chatFrames } from ${JSON.stringify(resolve(import.meta.dir, "../../test/fakes/wire-b-chat.ts"))};
    const frames = [...chatFrames({ text: ${JSON.stringify(text)}, chunk: 3, usage: { input: 10, output: 8 } }), "data: [DONE]\\n\\n"];
    const s = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, async fetch(req) {
      await req.arrayBuffer();
      let i = 0;
      let timer;
      // The client may stop reading at the finish chunk, before [DONE]: cancel ends the pacing.
      const body = new ReadableStream({
        start(c) {
          const next = () => {
            c.enqueue(frames[i++]);
            if (i < frames.length) timer = setTimeout(next, ${gapMs});
            else c.close();
          };
          next();
        },
        cancel() {
          clearTimeout(timer);
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    } });
    console.log(s.port);`;
  const proc = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "inherit" });
  const first = await proc.stdout.getReader().read();
  const port = Number(new TextDecoder().decode(first.value).trim());
  if (!port) throw new Error("the paced provider did not start");
  return { base: `http://127.0.0.1:${port}/v1`, stop: () => proc.kill() };
}
