// `agent trust`: allow (or revoke, or list) a project's tool servers, scripts, model choice and
// credential-bearing addresses, as direnv's `allow` does for .envrc.
import type { CommandSpec } from "../util/cli-command.ts";

export const trustCommand: CommandSpec = {
  name: "trust",
  summary: "Allow this project's tool servers, scripts, models and addresses to be used (--revoke, --list)",
  description: `
A project's .agent/config.yaml can name programs to start (stdio tool servers in mcp_servers), a shell
init script (agent_behavior.shell.init_script), the model your conversation goes to (a provider of its
own or a new address for yours, a model's provider or wire name, the default models), addresses that
would receive your credentials (a remote tool server, a web proxy, extra CA certificates), values read
from your environment (\${VAR}), or loosen the permission matcher; its .agent/permissions.yaml can allow
tool calls (shell commands) without asking. None of these is used until you trust the project: sessions
start without them (with your own models) and say so. Allow rules you add yourself by answering "allow
always in this project" need no trust. 'agent trust' shows exactly what would run and records your
consent for DIR (default: the project of the working directory), pinned to those settings and the content
of the files they name and of what those scripts source or run from the project: changing any of them
asks again. The record is kept in <data root>/trust/projects.json (mode 600).
'agent exec --trust-project' uses them for one run without recording anything (CI).
Exit codes: 0 done, 1 nothing recorded for --revoke or a damaged trust file, 2 usage.`,
  flags: [
    { name: "revoke", type: "boolean", summary: "Forget the trust of DIR (and your 'allow always' answers there): its sessions start without those settings again" },
    { name: "list", type: "boolean", summary: "List the trusted projects and whether each changed since" },
    { name: "json", type: "boolean", summary: "Print JSON for scripts" },
  ],
  positionals: [{ name: "DIR", summary: "The project directory (default: the current project)" }],
  examples: ["agent trust", "agent trust ~/src/cloned-repo", "agent trust --list", "agent trust --revoke"],
  run: async (args, io) => (await import("./trust-run.ts")).trustRun(args, io),
};
