// Every session command, in `/help` order. A new command: one file here and one line below.
import { autonomyCommand } from "./autonomy.ts";
import { clearCommand } from "./clear.ts";
import { compactCommand } from "./compact.ts";
import { initCommand } from "./custom/init.ts";
import { shellCommand } from "./custom/shell-command.ts";
import { extensionsCommand } from "../extensions/command.ts";
import { facetCommand } from "./facet.ts";
import { mcpCommand } from "./mcp.ts";
import { modelCommand } from "./model.ts";
import { rewindCommand } from "./rewind.ts";
import type { SessionCommand } from "./types.ts";
import { undoCommand } from "./undo.ts";

export const SESSION_COMMANDS: readonly SessionCommand[] = [compactCommand, clearCommand, undoCommand, rewindCommand, facetCommand, autonomyCommand, modelCommand, mcpCommand, extensionsCommand, initCommand, shellCommand];
