// Engine sessions for benchmarks: one user turn of N `progress_update` tool calls, then a text answer,
// from a provider that answers instantly, either in-process (pre-encoded Chat Completions streams through
// an injected fetch: the engine alone) or over real HTTP from another process on 127.0.0.1.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionFromConfig, type CreateSessionOptions } from "../../src/agent/create-session.ts";
import type { FetchLike } from "../../src/providers/http.ts";
import { chatFrames } from "../../test/fakes/wire-b-chat.ts";

const encoder = new TextEncoder();
const toolBody = encoder.encode(chatFrames({ text: "Next step.", tool_calls: [{ id: "call_x", name: "progress_update", arguments: '{"text":"working"}' }], usage: { input: 100, output: 10 } }).join("") + "data: [DONE]\n\n");
const textBody = encoder.encode(chatFrames({ text: "All done here.", usage: { input: 100, output: 5 } }).join("") + "data: [DONE]\n\n");
const sse = (bytes: Uint8Array<ArrayBuffer>) => new Response(bytes, { headers: { "content-type": "text/event-stream" } });

/** Answers with a tool call `every` times, then a final text, and again. */
export function instantProvider(every: number): FetchLike {
  let n = 0;
  return async () => (++n % (every + 1) === 0 ? sse(textBody) : sse(toolBody));
}

export interface BenchProject {
  root: string;
  /** Global config dir of this project's HOME (write telemetry/updates blocks here). */
  globalConfigDir: string;
  env: Record<string, string>;
}

export function benchProject(prefix: string): BenchProject {
  const base = mkdtempSync(join(tmpdir(), prefix));
  const root = join(base, "proj");
  mkdirSync(join(root, ".agent"), { recursive: true });
  mkdirSync(join(root, ".git"));
  writeFileSync(
    join(root, ".agent", "config.yaml"),
    `providers:\n  fast: { kind: { type: custom_b_compatible }, url: "http://127.0.0.1:9/v1", auth: { type: no_auth } }\nmodels:\n  m: { provider: fast, class: full, context_window: 200000 }\ndefaults: { full: m }\ndaemon: { max_tool_turns: 1000 }\n`,
  );
  const home = join(base, "home");
  const globalConfigDir = join(home, ".config", "agent");
  mkdirSync(globalConfigDir, { recursive: true });
  return { root, globalConfigDir, env: { HOME: home, PATH: process.env.PATH ?? "" } };
}

/**
 * Milliseconds from submit to idle of one user turn with `calls` tool round-trips (in-process instant
 * provider unless `extra.fetch` is null: then the project's configured provider over HTTP).
 */
export async function timedSession(project: BenchProject, calls: number, extra: Omit<Partial<CreateSessionOptions>, "fetch"> & { fetch?: FetchLike | null } = {}): Promise<number> {
  const { fetch: given, ...rest } = extra;
  const fetch = given === null ? undefined : (given ?? instantProvider(calls));
  const { session } = await createSessionFromConfig({ cwd: project.root, env: project.env, interactive: false, ...(fetch ? { fetch } : {}), ...rest });
  const started = performance.now();
  session.submit({ text: "do many things" });
  await session.idle();
  const elapsed = performance.now() - started;
  await session.close();
  return elapsed;
}

/**
 * A provider on 127.0.0.1 in its own process (so its work is not this process's CPU): the same answers
 * over real HTTP and SSE, `every` tool calls then a text, in a cycle. Returns its base URL and a stop.
 */
export async function loopbackProvider(every: number): Promise<{ base: string; stop(): void }> {
  const script = `
    import { chatFrames } from ${JSON.stringify(new URL("../../test/fakes/wire-b-chat.ts", import.meta.url).pathname)};
    const enc = new TextEncoder();
    const tool = enc.encode(chatFrames({ text: "Next step.", tool_calls: [{ id: "call_x", name: "progress_update", arguments: '{"text":"working"}' }], usage: { input: 100, output: 10 } }).join("") + "data: [DONE]\\n\\n");
    const text = enc.encode(chatFrames({ text: "All done here.", usage: { input: 100, output: 5 } }).join("") + "data: [DONE]\\n\\n");
    let n = 0;
    const s = Bun.serve({ hostname: "127.0.0.1", port: 0, async fetch(req) {
      await req.arrayBuffer();
      return new Response(++n % ${every + 1} === 0 ? text : tool, { headers: { "content-type": "text/event-stream" } });
    } });
    console.log(s.port);`;
  const proc = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "inherit" });
  const first = await proc.stdout.getReader().read();
  const port = Number(new TextDecoder().decode(first.value).trim());
  return { base: `http://127.0.0.1:${port}/v1`, stop: () => proc.kill() };
}

/** A project like benchProject's whose provider is at `base` (a loopbackProvider). */
export function loopbackProject(prefix: string, base: string): BenchProject {
  const project = benchProject(prefix);
  writeFileSync(
    join(project.root, ".agent", "config.yaml"),
    `providers:\n  fast: { kind: { type: custom_b_compatible }, url: "${base}", auth: { type: no_auth } }\nmodels:\n  m: { provider: fast, class: full, context_window: 200000 }\ndefaults: { full: m }\ndaemon: { max_tool_turns: 1000 }\n`,
  );
  return project;
}
