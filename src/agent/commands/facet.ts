// `/facet [NAME]`: lists the facets (the active one marked), or switches the facet for the next turn:
// its system prompt, its tools (plan is read-only) and its model pin. Session state: a resumed session
// keeps it, and the catalog revision does not change. Leaving `plan` hands its plan over
// (src/agent/facets/handoff.ts): `--new-context` starts the model's context over from the plan,
// `--goal` / `--no-goal` decide whether the plan becomes the session's goal.
import { checkHandoff, findPlan, handOver, HandoffError, PLAN_FACET, type HandoffOptions } from "../facets/handoff.ts";
import { FacetSwitchError, switchFacet } from "../facets/switch.ts";
import { SessionCommandError, type SessionCommand } from "./types.ts";

const FLAGS = ["--new-context", "--goal", "--no-goal"] as const;

function parseFlags(flags: readonly string[]): HandoffOptions {
  const opts: HandoffOptions = { newContext: false, goal: null };
  for (const flag of flags) {
    if (flag === "--new-context") opts.newContext = true;
    else if (flag === "--goal" || flag === "--no-goal") {
      if (opts.goal !== null) throw new SessionCommandError("invalid_command", "give at most one of --goal and --no-goal");
      opts.goal = flag === "--goal";
    } else throw new SessionCommandError("invalid_command", `unknown option '${flag}'; allowed: ${FLAGS.join(", ")}; usage: ${facetCommand.usage}`);
  }
  return opts;
}

export const facetCommand: SessionCommand = {
  name: "facet",
  usage: "/facet [NAME [--new-context] [--goal | --no-goal]]",
  summary: "Show the facets, or switch the facet (prompt, tools, model pin) for the next turn; leaving plan hands its plan over",
  whileBusy: true,
  async run({ session, runtime, services }, args) {
    const modes = services.modes;
    if (!modes) throw new SessionCommandError("command_unavailable", "this session cannot switch facets");
    const facets = modes.facetNames();
    if (args.length === 0) {
      const lines = facets.map((f) => `${f === modes.facet.name ? "*" : " "} ${f}`);
      return { message: `${lines.join("\n")}\nmodel: ${modes.modelRef()}`, data: { facet: modes.facet.name, facets, model: modes.modelRef() } };
    }
    const [name, ...flags] = args;
    const opts = parseFlags(flags);
    const from = modes.facet.name;
    const leavingPlan = from === PLAN_FACET && name !== PLAN_FACET;
    if (flags.length > 0 && !leavingPlan) throw new SessionCommandError("invalid_command", `${flags[0]} applies only when leaving the ${PLAN_FACET} facet (the active facet is ${from})`);
    if (session.busy) throw new SessionCommandError("command_unavailable", "/facet cannot switch while a turn is running; interrupt it (Esc) or wait for it to end");
    const plan = leavingPlan ? findPlan(modes, session.conversation, from) : null;
    try {
      checkHandoff(opts, runtime, plan, services.goals);
    } catch (error) {
      if (error instanceof HandoffError) throw new SessionCommandError("command_unavailable", error.message);
      throw error;
    }
    let event;
    try {
      event = switchFacet(modes, runtime, (e) => session.record(e), name!);
    } catch (error) {
      if (error instanceof FacetSwitchError) throw new SessionCommandError("invalid_command", error.message);
      throw error;
    }
    if (!event) return { message: `already in facet ${name}`, data: { facet: modes.facet.name, model: modes.modelRef(), changed: false } };
    const data: Record<string, unknown> = { facet: event.facet, previous: event.previous, model: event.model, changed: true };
    let message = `facet: ${event.facet} (was ${event.previous}) · model ${event.model}; the next turn uses it`;
    if (plan) {
      const handoff = handOver({ runtime, conversation: session.conversation, record: (e) => session.record(e), goals: services.goals, clock: runtime.clock }, event, plan, opts);
      data.handoff = handoff;
      message += handoff.new_context ? "\nThe model starts a new context from the plan." : "\nThe plan stays in context for the model to carry out.";
      if (handoff.goal_id) message += `\nThe plan is now the session's goal: the session continues on its own until it is done.`;
    }
    return { message, data };
  },
};
