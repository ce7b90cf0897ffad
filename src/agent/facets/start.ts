// The facet and model a session starts with: the requested (or default) ones, then, for a resumed
// session, the ones its stored events end with.
import type { LoadedConfig } from "../../config/load.ts";
import type { Facet } from "../context/facets.ts";
import type { EngineEvent } from "../events.ts";
import { SessionModes, type ModesDeps } from "./modes.ts";
import { foldModes } from "./state.ts";

export interface StartModesOptions extends ModesDeps {
  loaded: LoadedConfig;
  /** The start facet (requested, else active_session.default_facet / default_exec_facet, else execute). */
  facet: Facet;
  /** An explicit model (`--model`); null: the facet's pin, else defaults.full. */
  model: string | null;
  initialEvents: readonly EngineEvent[];
}

/** Throws ModelChoiceError when no model can run; problems restoring a stored state become warnings. */
export function startModes(opts: StartModesOptions, warnings: string[]): SessionModes {
  const fold = foldModes(opts.initialEvents);
  const modes = new SessionModes(opts, { facet: opts.facet, model: opts.model, fold });
  warnings.push(...modes.restore(fold.state));
  return modes;
}
