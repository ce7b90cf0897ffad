// `agent acp`: the Agent Client Protocol over stdio, for editors (Zed, JetBrains IDEs, Neovim, Emacs).
import type { CommandSpec } from "../util/cli-command.ts";

export const acpCommand: CommandSpec = {
  name: "acp",
  summary: "Serve editors over the Agent Client Protocol (stdio); their sessions are ordinary sessions",
  description: `
Speaks the Agent Client Protocol (JSON-RPC on stdin/stdout) for an editor that starts it as an agent
server. Each editor conversation is a session of the session daemon, as 'agent new' makes: it keeps
running when the editor closes, appears in 'agent sessions list', can be joined at the same time with
'agent continue ID' or through the gateway, and comes back in the editor (session/load). Facets are the
editor's modes and the model is a session option; tool permission questions are asked in the editor.
Files are read and written by the session itself, not through the editor's buffers (docs/acp.md).
Settings for Zed, JetBrains IDEs and Neovim: docs/acp.md.`,
  flags: [{ name: "demo", type: "boolean", summary: "Sessions use the offline demo provider (scripted answers, no account)" }],
  examples: ["agent acp", "agent acp --demo"],
  run: async (args, io) => (await import("./acp-run.ts")).acpRun(args, io),
};
