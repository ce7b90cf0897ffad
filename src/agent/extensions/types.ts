// What an extension module sees and returns. The entry's default export is an ExtensionFactory: it gets
// `plugins.<name>` from the config (uninterpreted, undefined when absent) and the api, and returns what
// the extension provides. Tools use the engine's own Tool interface; schemas are built with `api.Type`.
import type { Type } from "@sinclair/typebox";
import type { Tool } from "../../tools/tool.ts";

export interface ExtensionApi {
  /** TypeBox's type builder, for tool input schemas (the extension needs no copy of its own). */
  Type: typeof Type;
  /** Appends a line to the session log (session.log in the session directory). */
  log(message: string): void;
  /** The project the session works in. */
  projectRoot: string;
  /** The extension's own directory (real path). */
  dir: string;
  name: string;
  version: string;
}

export interface ExtensionContext {
  /** `plugins.<name>` exactly as configured; undefined when the config has none. */
  config: unknown;
  api: ExtensionApi;
}

export interface ExtensionReminderState {
  /** The model key of the coming call. */
  model: string;
  /** The coming call is the last tool round of the turn (daemon.max_tool_turns). */
  lastToolRound: boolean;
}

/** Asked before every model call; text (or null for nothing) goes to the model as a system reminder. */
export interface ExtensionReminder {
  name: string;
  text(state: ExtensionReminderState): string | null | undefined;
}

export interface ExtensionProvides {
  tools?: Tool[];
  reminders?: ExtensionReminder[];
}

export type ExtensionFactory = (context: ExtensionContext) => ExtensionProvides | Promise<ExtensionProvides>;
