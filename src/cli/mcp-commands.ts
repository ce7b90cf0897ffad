// `agent mcp ...`: add, list, remove, authorize and try tool servers (MCP) without starting a session.
import type { CommandSpec, FlagSpec } from "../util/cli-command.ts";

const JSON_FLAG: FlagSpec = { name: "json", type: "boolean", summary: "Print JSON for scripts" };
const PROJECT_FLAG: FlagSpec = { name: "project", type: "boolean", summary: "Edit the project's .agent/config file instead of the global one" };
const NAME = { name: "NAME", summary: "The server's name (a key of mcp_servers)", required: true };

const run = (name: "add" | "list" | "remove" | "login" | "logout" | "test"): CommandSpec["run"] =>
  async (args, io) => (await import("./mcp-run.ts"))[name](args, io);

export const mcpCommand: CommandSpec = {
  name: "mcp",
  summary: "Add, list, remove, authorize and test tool servers (MCP)",
  description: `
Tool servers are the mcp_servers of the config (docs/mcp.md). 'add' and 'remove' edit the global config
file (or the project's with --project), keeping everything else in it: in YAML, comments and order stay;
in TOML the server's own [mcp_servers.NAME] tables are appended or cut and the rest is untouched; JSON has
no comments and is printed again with two-space indentation. A server a project adds waits for
'agent trust' like any project server. 'login' runs a server's OAuth authorization now, without a session;
'test' connects as a session would and lists the tools.
Exit codes: 0 done, 1 failed (not connected, not authorized, nothing to remove), 2 usage.`,
  subcommands: [
    {
      name: "add",
      summary: "Add a server: agent mcp add NAME -- COMMAND [ARGS...] (stdio) or agent mcp add NAME --url URL (http)",
      flags: [
        { name: "url", type: "string", valueName: "URL", summary: "A remote server over streamable HTTP" },
        { name: "auth", type: "string", valueName: "TYPE", choices: ["none", "oauth"], summary: "Remote auth: oauth (authorize with 'agent mcp login'), or none" },
        { name: "header", type: "string", valueName: "NAME=VALUE", repeatable: true, summary: "Header sent with every request (http; ${VAR} is substituted when loaded)" },
        { name: "env", type: "string", valueName: "NAME=VALUE", repeatable: true, summary: "Variable set for the child (stdio)" },
        { name: "pass-env", type: "string", valueName: "NAME", repeatable: true, summary: "Variable copied from the agent's environment (stdio)" },
        { name: "disabled", type: "boolean", summary: "Listed but not started until enabled with /mcp (default_enabled: false)" },
        PROJECT_FLAG,
        JSON_FLAG,
      ],
      positionals: [NAME, { name: "COMMAND", summary: "After --: the program and its arguments (stdio)", variadic: true }],
      examples: ["agent mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes", "agent mcp add tracker --url https://mcp.example.com/mcp --auth oauth"],
      run: run("add"),
    },
    { name: "list", summary: "List the configured servers: transport, target, where set, authorization", flags: [JSON_FLAG], run: run("list") },
    { name: "remove", summary: "Remove a server from the global config (or the project's with --project)", flags: [PROJECT_FLAG, JSON_FLAG], positionals: [NAME], run: run("remove") },
    {
      name: "login",
      summary: "Authorize an OAuth server now: prints the address to open and waits for the browser",
      flags: [
        { name: "timeout", type: "string", valueName: "SECONDS", summary: "How long to wait for the authorization (default 300)" },
        JSON_FLAG,
      ],
      positionals: [NAME],
      run: run("login"),
    },
    { name: "logout", summary: "Forget a server's stored OAuth credentials (auth/mcp/<auth_key_name>/)", flags: [JSON_FLAG], positionals: [NAME], run: run("logout") },
    { name: "test", summary: "Connect to a server as a session would and list its tools", flags: [JSON_FLAG], positionals: [NAME], run: run("test") },
  ],
};
