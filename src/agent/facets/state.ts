// The facet/model part of a session's state, folded from its events, so a resumed session keeps the
// facet and model it had, and a plan handoff finds the plan the plan facet wrote last.
import type { EngineEvent } from "../events.ts";

export interface ModeState {
  /** The facet after the last switch; null: never switched (the session's start facet stands). */
  facet: string | null;
  /** The model in effect after the last facet or model switch. */
  model: string | null;
  /** The session's own model from the last `/model`. */
  base: string | null;
  /** The last assistant message with text, and the facet of its turn. */
  lastAnswer: { message_id: string; facet: string } | null;
}

export function emptyModeState(): ModeState {
  return { facet: null, model: null, base: null, lastAnswer: null };
}

/** Tracks the facet of the running turn between events (turn_started names it). */
export class ModeFold {
  readonly state: ModeState = emptyModeState();
  private turnFacet = "";

  apply(e: EngineEvent): void {
    switch (e.type) {
      case "facet_changed":
        this.state.facet = e.facet;
        this.state.model = e.model;
        return;
      case "model_changed":
        this.state.model = e.model;
        this.state.base = e.model;
        return;
      case "turn_started":
        this.turnFacet = e.facet;
        return;
      case "part_completed":
        if (e.part.type === "text" && e.part.text.trim() !== "") this.state.lastAnswer = { message_id: e.message_id, facet: this.turnFacet };
        return;
      default:
        return;
    }
  }
}

export function foldModes(events: Iterable<EngineEvent>): ModeFold {
  const fold = new ModeFold();
  for (const e of events) fold.apply(e);
  return fold;
}
