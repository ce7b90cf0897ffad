// A Messages-dialect provider fake on 127.0.0.1 that answers each request by what it is (the parent's
// conversation or a subagent's, told apart by system prompt and task text) rather than by arrival order,
// since parallel subagents call the model in any order. Streams can be held at a gate and released.
// Every request is checked against the dialect's invariants (every tool call answered...).
import type { Server } from "bun";
import { messagesFrames } from "../fakes/wire-a-messages.ts";
import { checkRequestInvariants, type ReplayMemory } from "../fakes/request-invariants.ts";
import type { TurnSpec } from "../fakes/turn-spec.ts";

export interface SeenRequest {
  body: any;
  system: string;
  /** Text of the first user message: the task of a subagent, the prompt of the parent. */
  task: string;
  /** Assistant messages already in the conversation (0 for its first call). */
  round: number;
  /** Tool results in the last user message, by tool_use_id. */
  results: Record<string, string>;
  tools: string[];
}

/** A reply, optionally held after `holdAfter` frames until released (or until the client goes away); or an HTTP error. */
export type Reply = { turn: TurnSpec; holdAfter?: number } | { status: number; error: { type: string; message: string } };

export interface RoutingFake {
  base: string;
  requests: SeenRequest[];
  violations: string[];
  /** Streams waiting at their gate now. */
  held(): number;
  release(): void;
  stop(): Promise<void>;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: any) => (b?.type === "text" ? b.text : b?.type === "tool_result" ? textOf(b.content) : "")).join("\n");
}

export function startRoutingFake(route: (req: SeenRequest) => Reply): RoutingFake {
  const requests: SeenRequest[] = [];
  const violations: string[] = [];
  const memory: ReplayMemory = { thinking: [], reasoningItems: [] };
  const gates = new Set<() => void>();
  const encoder = new TextEncoder();
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    error: (error) => Response.json({ error: { type: "fake_error", message: String(error) } }, { status: 500 }),
    async fetch(req, srv) {
      srv.timeout(req, 0);
      const body = await req.json();
      const problems = checkRequestInvariants("a_messages", body, memory);
      if (problems.length > 0) {
        violations.push(...problems);
        return Response.json({ error: { type: "invalid_request_error", message: problems.join("; ") } }, { status: 400 });
      }
      const messages: any[] = body.messages ?? [];
      const last = messages.at(-1);
      const results: Record<string, string> = {};
      for (const b of Array.isArray(last?.content) ? last.content : []) if (b.type === "tool_result") results[b.tool_use_id] = textOf(b.content);
      const seen: SeenRequest = {
        body,
        system: (body.system ?? []).map((b: { text: string }) => b.text).join("\n"),
        task: textOf(messages[0]?.content),
        round: messages.filter((m) => m.role === "assistant").length,
        results,
        tools: (body.tools ?? []).map((t: { name: string }) => t.name).sort(),
      };
      requests.push(seen);
      let reply: Reply;
      try {
        reply = route(seen);
      } catch (error) {
        violations.push(`unexpected request: ${(error as Error).message}`);
        return Response.json({ error: { type: "invalid_request_error", message: (error as Error).message } }, { status: 400 });
      }
      if ("status" in reply) return Response.json({ type: "error", error: reply.error }, { status: reply.status });
      const frames = messagesFrames(reply.turn);
      const hold = reply.holdAfter;
      let sent = 0;
      let held = false;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (hold !== undefined && sent >= hold && !held) {
            held = true;
            await new Promise<void>((resolve) => gates.add(resolve));
          }
          const f = frames[sent++];
          if (f === undefined) return controller.close();
          controller.enqueue(encoder.encode(f));
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return {
    base: `http://127.0.0.1:${server.port}`,
    requests,
    violations,
    held: () => gates.size,
    release() {
      for (const g of gates) g();
      gates.clear();
    },
    async stop() {
      for (const g of gates) g();
      await server.stop(true);
    },
  };
}

/** A config on the fake: model `big` (full) and `small` (mini) on one provider; extra YAML appended. */
export function routedConfig(fake: RoutingFake, extra = ""): string {
  return `providers:
  fake: { kind: { type: custom_a_compatible }, url: "${fake.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  big: { provider: fake, class: full, context_window: 100000, max_tool_batch_size: 8 }
  small: { provider: fake, class: mini, context_window: 50000 }
defaults: { full: big, mini: small }
${extra}`;
}

export const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: JSON.stringify(args) });

/** A `task` call of the parent. */
export const task = (id: string, subagent: string, prompt: string) => call(id, "task", { subagent, description: `job ${id}`, prompt });

/** Whether a request comes from a subagent: only the parent is offered `task` (subagents cannot nest). */
export const fromSubagent = (r: SeenRequest) => !r.tools.includes("task");
