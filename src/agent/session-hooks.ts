// A session's hooks (src/agent/hooks/): the global config's and a trusted project's hook commands, run
// with the session's child environment and recorded in its journal, and the SessionStart run a host
// starts once it records the session's events.
import type { LoadedConfig } from "../config/load.ts";
import type { EngineEvent } from "./events.ts";
import { Hooks, type HooksDeps } from "./hooks/hooks.ts";
import { hookSources } from "./hooks/sources.ts";

/** The hooks of the config's files (a bad matcher is skipped with a line in `warnings`). */
export function sessionHooks(loaded: Pick<LoadedConfig, "layers" | "trust">, deps: HooksDeps, warnings: string[]): Hooks {
  return new Hooks(hookSources(loaded), deps, warnings);
}

/**
 * Runs the SessionStart hooks: source `resume` when the session started from recorded events, else
 * `startup`; what they add goes into the session's context.
 */
export function sessionStartHooks(hooks: Hooks, session: { addContext(text: string): void }, initialEvents: readonly EngineEvent[]): () => Promise<void> {
  return async () => {
    if (!hooks.has("SessionStart")) return;
    const source = initialEvents.length > 0 ? "resume" : "startup";
    const v = await hooks.run("SessionStart", { source }, { turnId: "", target: source });
    if (v.context) session.addContext(`<hook-context event="SessionStart">\n${v.context}\n</hook-context>`);
  };
}
