// `/facet [NAME]`: lists the facets (the active one marked), or switches the facet for the next turn:
// its system prompt, its tools (plan is read-only) and its model pin. Session state: a resumed session
// keeps it, and the catalog revision does not change.
import { FacetSwitchError, switchFacet } from "../facets/switch.ts";
import { SessionCommandError, type SessionCommand } from "./types.ts";

export const facetCommand: SessionCommand = {
  name: "facet",
  usage: "/facet [NAME]",
  summary: "Show the facets, or switch the facet (prompt, tools, model pin) for the next turn",
  whileBusy: true,
  async run({ session, runtime, services }, args) {
    const modes = services.modes;
    if (!modes) throw new SessionCommandError("command_unavailable", "this session cannot switch facets");
    const facets = modes.facetNames();
    if (args.length === 0) {
      const lines = facets.map((f) => `${f === modes.facet.name ? "*" : " "} ${f}`);
      return { message: `${lines.join("\n")}\nmodel: ${modes.modelRef()}`, data: { facet: modes.facet.name, facets, model: modes.modelRef() } };
    }
    const [name, ...rest] = args;
    if (rest.length > 0) throw new SessionCommandError("invalid_command", `unexpected argument '${rest[0]}'; usage: ${facetCommand.usage}`);
    if (session.busy) throw new SessionCommandError("command_unavailable", "/facet cannot switch while a turn is running; interrupt it (Esc) or wait for it to end");
    let event;
    try {
      event = switchFacet(modes, runtime, (e) => session.record(e), name!);
    } catch (error) {
      if (error instanceof FacetSwitchError) throw new SessionCommandError("invalid_command", error.message);
      throw error;
    }
    if (!event) return { message: `already in facet ${name}`, data: { facet: modes.facet.name, model: modes.modelRef(), changed: false } };
    return { message: `facet: ${event.facet} (was ${event.previous}) · model ${event.model}; the next turn uses it`, data: { facet: event.facet, previous: event.previous, model: event.model, changed: true } };
  },
};
