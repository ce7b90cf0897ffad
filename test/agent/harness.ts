// Builds a real project on disk (.agent/config.yaml, files) and a session from it through
// createSessionFromConfig, recording every event.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Type } from "@sinclair/typebox";
import { createSessionFromConfig, type CreateSessionOptions } from "../../src/agent/create-session.ts";
import type { EngineEvent } from "../../src/agent/events.ts";
import type { AgentSession } from "../../src/agent/session.ts";
import { defineTool, type Tool } from "../../src/tools/tool.ts";

export interface Project {
  root: string;
  env: Record<string, string>;
}

export function makeProject(config: string, files: Record<string, string> = {}): Project {
  const base = mkdtempSync(join(tmpdir(), "agent-engine-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(join(root, ".agent"), { recursive: true });
  writeFileSync(join(root, ".agent", "config.yaml"), config);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const home = join(base, "home");
  mkdirSync(home);
  return { root, env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" } };
}

/**
 * A config using the scripted `test` provider with the script at `script.yaml` in the project. Tool calls
 * are allowed (`bypass`) unless `extra` sets another matcher: these tests are about the loop, and
 * permissions.test.ts covers the gate.
 */
export function scriptedConfig(extra = ""): string {
  const matcher = extra.includes("default_permission_matcher") ? "" : "default_permission_matcher: bypass\n";
  return `providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\n${matcher}${extra}`;
}

export interface Recorded {
  session: AgentSession;
  events: EngineEvent[];
  notices: string[];
  of<T extends EngineEvent["type"]>(type: T): Extract<EngineEvent, { type: T }>[];
}

export async function startSession(project: Project, opts: Partial<CreateSessionOptions> = {}): Promise<Recorded> {
  // Engine tests configure the project layer freely (bypass, tool servers): trusted for the run, as --trust-project.
  const created = await createSessionFromConfig({ cwd: project.root, env: project.env, interactive: false, untrusted: "keep", ...opts });
  // Tool servers connect in the background; engine tests start their turn once every server has settled.
  await created.live.mcp?.start();
  const events: EngineEvent[] = [];
  created.session.subscribe((e) => events.push(e));
  return {
    session: created.session,
    events,
    notices: created.notices,
    of: <T extends EngineEvent["type"]>(type: T) => events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type),
  };
}

/** A tool that counts how many of its calls run at once, and waits until released (or cancelled). */
export function probeTool(name: string, options: { lockKey?: string } = {}) {
  let running = 0;
  const state = { max: 0, started: 0, release: () => {} };
  let gate = Promise.withResolvers<void>();
  state.release = () => gate.resolve();
  const tool: Tool = defineTool({
    name,
    description: `Test probe ${name}.`,
    inputSchema: Type.Object({ n: Type.Number() }),
    exclusive: options.lockKey ? () => options.lockKey : undefined,
    async run(input, _ctx, signal) {
      running++;
      state.started++;
      state.max = Math.max(state.max, running);
      try {
        await Promise.race([gate.promise, new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }))]);
        return { output: `probe ${input.n} done` };
      } finally {
        running--;
      }
    },
  });
  return { tool, state, reset: () => (gate = Promise.withResolvers<void>()) };
}

export async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await Bun.sleep(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}
