// `/model [NAME]`: shows the model in effect and the configured ones, or switches the session's model
// for the next turn (`name` or `name(level)`). Session state: a resumed session keeps it.
import { ModelChoiceError, modelKeys } from "../facets/model-choice.ts";
import { SessionCommandError, type SessionCommand } from "./types.ts";

export const modelCommand: SessionCommand = {
  name: "model",
  usage: "/model [NAME | NAME(LEVEL)]",
  summary: "Show the model in effect, or switch the session's model for the next turn",
  whileBusy: true,
  async run({ session, runtime, services }, args) {
    const modes = services.modes;
    if (!modes) throw new SessionCommandError("command_unavailable", "this session cannot switch models");
    const models = modelKeys(modes.loaded);
    if (args.length === 0) {
      const pin = modes.facet.model ? ` (pinned by facet ${modes.facet.name})` : "";
      return { message: `model: ${modes.modelRef()}${pin}\nconfigured: ${models.join(", ")}`, data: { model: modes.modelRef(), models } };
    }
    const ref = args.join(" ");
    if (session.busy) throw new SessionCommandError("command_unavailable", "/model cannot switch while a turn is running; interrupt it (Esc) or wait for it to end");
    let event;
    try {
      event = modes.switchModel(ref);
    } catch (error) {
      if (error instanceof ModelChoiceError) throw new SessionCommandError("invalid_command", error.message);
      throw error;
    }
    if (!event) return { message: `already using ${modes.modelRef()}`, data: { model: modes.modelRef(), changed: false } };
    modes.applyTo(runtime);
    session.record(event);
    return { message: `model: ${event.model} (was ${event.previous}); the next turn uses it`, data: { model: event.model, previous: event.previous, changed: true } };
  },
};
