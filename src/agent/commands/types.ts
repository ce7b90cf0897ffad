// Session commands: what a person types as `/name args...` in a client (the TUI's slash commands), run
// by the engine through one seam so local and remote clients behave the same. The daemon exposes them as
// `GET /commands` and `POST /commands/{name}`; each command lives in its own file in this folder.
import type { McpManager } from "../../mcp/manager.ts";
import type { ExtensionManager } from "../extensions/manager.ts";
import type { SessionModes } from "../facets/modes.ts";
import type { GoalDriver } from "../goals/driver.ts";
import type { Checkpoints } from "../checkpoints/recorder.ts";
import type { AgentRuntime } from "../runtime.ts";
import type { AgentSession } from "../session.ts";
import type { Autonomy } from "../../sandbox/settings.ts";
import type { SessionCommandInfo, SessionCommandResult } from "../../protocol/daemon-responses.ts";

/** What a command answers, and what clients see of a command (`GET /commands`): wire shapes, defined once. */
export type { SessionCommandInfo, SessionCommandResult };

export type SessionCommandErrorCode =
  /** No command has that name. */
  | "unknown_command"
  /** The arguments do not fit the command's usage. */
  | "invalid_command"
  /** The command exists but cannot run now (turn running, feature disabled by config, nothing to act on). */
  | "command_unavailable"
  /** The command ran and failed (a compaction whose summary model failed); nothing was changed. */
  | "command_failed"
  /** /undo or /rewind would overwrite a file someone changed since the agent did; nothing was changed. */
  | "checkpoint_conflict";

export class SessionCommandError extends Error {
  constructor(
    readonly code: SessionCommandErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "SessionCommandError";
  }
}

/** What a command may reach. Fields are added by the parts that own them (facets, compaction...). */
export interface CommandServices {
  mcp: McpManager | null;
  /** Facet and model switching (/facet, /model); absent in sessions built without a config. */
  modes?: SessionModes;
  /** The session's goal (/goal, the plan handoff). */
  goals?: GoalDriver;
  /** The session's extensions (/extensions). */
  extensions?: ExtensionManager;
  /** Restore points of the turns' file changes (/undo, /rewind). */
  checkpoints?: Checkpoints;
  /** What runs without a question (/autonomy); absent when the session's gate was supplied from outside. */
  permissions?: { readonly autonomy: Autonomy; setAutonomy(level: Autonomy): void; readonly sandbox: string };
}

export interface CommandContext {
  session: AgentSession;
  /** The session's runtime; commands that switch session state (facet, model) change it here. */
  runtime: AgentRuntime;
  services: CommandServices;
  /** Cancelled by interrupt() while a command that holds the session (whileBusy false) runs. */
  signal: AbortSignal;
}

export interface SessionCommand {
  name: string;
  /** e.g. `/mcp [list | enable NAME | disable NAME | reconnect NAME]` */
  usage: string;
  /** One line for `/help`. */
  summary: string;
  /** Whether the command may run while a turn is running (otherwise `command_unavailable`). */
  whileBusy: boolean;
  run(ctx: CommandContext, args: readonly string[]): Promise<SessionCommandResult>;
}
