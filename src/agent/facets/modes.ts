// The facet and model a session runs with, and switching them: a facet brings its system prompt, its
// tools (plan is read-only) and maybe a model pin; `/model` sets the session's own model. The turn loop
// reads everything from the runtime, so `applyTo` after a switch changes the next model request.
//
// Which model runs: the active facet's pin, else the session's model (`--model`, then `/model`, else
// defaults.full). `/model` in a pinned facet wins until the next facet switch; leaving a pinned facet
// returns to the session's model.
import type { LoadedConfig } from "../../config/load.ts";
import type { Facet } from "../context/facets.ts";
import type { EngineEvent } from "../events.ts";
import type { AgentRuntime } from "../runtime.ts";
import { chooseModel, modelRef, type ModelChoice } from "./model-choice.ts";
import { ModeFold, type ModeState } from "./state.ts";

export interface ModesDeps {
  loaded: LoadedConfig;
  /** Throws FacetError (naming what exists) for an unknown or unreadable facet. */
  resolveFacet(name: string): Facet;
  facetNames(): string[];
  /** The system prompt of a facet for a model (a built-in facet's wording follows the model's family). */
  systemPromptFor(facet: Facet, model: ModelChoice): string;
}

export class SessionModes {
  facet: Facet;
  /** The model in effect. */
  current: ModelChoice;
  /** The session's own model: what runs in a facet without a pin. */
  base: ModelChoice;
  /** Folded from the session's events (resume and live): what a plan handoff needs to find the plan. */
  readonly fold: ModeFold;
  constructor(
    readonly deps: ModesDeps,
    start: { facet: Facet; model: string | null; fold?: ModeFold },
  ) {
    this.fold = start.fold ?? new ModeFold();
    this.facet = start.facet;
    if (start.model) this.base = this.current = chooseModel(deps.loaded, start.model);
    else if (start.facet.model) {
      this.current = chooseModel(deps.loaded, start.facet.model);
      this.base = deps.loaded.defaults.full ? chooseModel(deps.loaded, null) : this.current;
    } else this.base = this.current = chooseModel(deps.loaded, null);
  }

  /** Built from facts read at session start, so it changes only with the facet or the model. */
  get systemPrompt(): string {
    return this.deps.systemPromptFor(this.facet, this.current);
  }

  get loaded(): LoadedConfig {
    return this.deps.loaded;
  }

  facetNames(): string[] {
    return this.deps.facetNames();
  }

  modelRef(): string {
    return modelRef(this.current);
  }

  /**
   * Takes back the facet and model a stored session ended with. A facet or model that no longer exists
   * in the config is skipped: the result says so, and the session keeps what it started with.
   */
  restore(state: ModeState): string[] {
    const skipped: string[] = [];
    if (state.base) {
      try {
        this.base = chooseModel(this.deps.loaded, state.base);
      } catch (error) {
        skipped.push(`the session's model ${state.base} is no longer available (${(error as Error).message}); using ${modelRef(this.base)}`);
      }
    }
    if (state.facet && state.facet !== this.facet.name) {
      try {
        this.facet = this.deps.resolveFacet(state.facet);
      } catch (error) {
        skipped.push(`the session's facet ${state.facet} is no longer available (${(error as Error).message}); using ${this.facet.name}`);
      }
    }
    if (state.model) {
      try {
        this.current = chooseModel(this.deps.loaded, state.model);
      } catch (error) {
        skipped.push(`the session's model ${state.model} is no longer available (${(error as Error).message}); using ${modelRef(this.current)}`);
      }
    }
    return skipped;
  }

  /** Switches the facet (FacetError for an unknown one); the event to record, or null when nothing changed. */
  switchFacet(name: string): Extract<EngineEvent, { type: "facet_changed" }> | null {
    if (name === this.facet.name) return null;
    const facet = this.deps.resolveFacet(name);
    const current = facet.model ? chooseModel(this.deps.loaded, facet.model) : this.base;
    const previous = this.facet.name;
    this.facet = facet;
    this.current = current;
    return { type: "facet_changed", facet: facet.name, previous, model: modelRef(current) };
  }

  /** Sets the session's model (ModelChoiceError for an unknown one); null when it is already in effect. */
  switchModel(ref: string): Extract<EngineEvent, { type: "model_changed" }> | null {
    const choice = chooseModel(this.deps.loaded, ref);
    const previous = modelRef(this.current);
    if (modelRef(choice) === previous) return null;
    this.base = this.current = choice;
    return { type: "model_changed", model: modelRef(choice), previous };
  }

  /** Makes the next turn use the current facet and model. */
  applyTo(rt: AgentRuntime): void {
    rt.facet = this.facet.name;
    rt.model = this.current.model;
    rt.reasoning = this.current.reasoning;
    rt.provider = this.current.provider;
    rt.toolContext.supportsVision = this.current.model.supports_vision;
  }
}
