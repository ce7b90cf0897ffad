// Switching the facet of a running session (the `/facet` command): the facet_changed event, the runtime
// the next turn reads, and the `facet_switched` reminder that tells the model its instructions and
// tools changed.
import { FacetError } from "../context/facets.ts";
import type { EngineEvent } from "../events.ts";
import type { AgentRuntime } from "../runtime.ts";
import { ModelChoiceError } from "./model-choice.ts";
import type { SessionModes } from "./modes.ts";

export class FacetSwitchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FacetSwitchError";
  }
}

/** Null when the facet is already active. Throws FacetSwitchError for an unknown facet or a pin to an unknown model. */
export function switchFacet(modes: SessionModes, runtime: AgentRuntime, record: (e: EngineEvent) => void, name: string): Extract<EngineEvent, { type: "facet_changed" }> | null {
  let event;
  try {
    event = modes.switchFacet(name);
  } catch (error) {
    if (error instanceof FacetError || error instanceof ModelChoiceError) throw new FacetSwitchError(error.message);
    throw error;
  }
  if (!event) return null;
  modes.applyTo(runtime);
  record(event);
  const f = modes.facet;
  // The tool list stays the same (the cached prefix survives the switch): the reminder says what may run.
  const tools = f.tools
    ? ` The tools offered now are the ${f.name} facet's own list.`
    : f.readOnly
      ? " You are read-only now: tools that change files, run commands or start work are still listed but are refused if called; use read, glob, grep and the web tools."
      : " Every tool offered may run now, as the permission rules allow.";
  runtime.reminders.raise(
    "facet_switched",
    `The session switched from the ${event.previous} facet to the ${event.facet} facet (model ${event.model}). Follow the instructions of the current system prompt from here on.${tools}`,
  );
  return event;
}
