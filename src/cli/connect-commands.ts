// `agent connect <host | host:port>`: the remote client (gateway.md, `agent connect`). Lazily imported.
import type { CommandSpec } from "../util/cli-command.ts";

export const connectCommand: CommandSpec = {
  name: "connect",
  summary: "Connect to an agent gateway: sign in, pick or start a session, and work in it remotely",
  description: `
Connects to the gateway at HOST (port 19870 unless given): plaintext only to loopback, HTTPS otherwise.
A certificate no CA signed is shown (SHA-256 fingerprint, common name) and trusted only when you confirm;
the pin is kept per host name, and a changed certificate is refused unless you confirm it again.
Sign-in is chosen by the gateway: username and password (or your system account with PAM), or the
device flow on token-only gateways (--device forces it). The sign-in is kept per host (0600) and reused.

The picker lists Sessions and Projects: Tab switches, Enter attaches to a session (a stopped one is
resumed) or starts a new one in a project, n jumps to Projects, r refreshes, Esc goes back or cancels.
In the session, Ctrl+D, Ctrl+C or /exit detach and leave it running; /kill-session stops it.`,
  positionals: [{ name: "host", summary: "Gateway host or host:port (e.g. build-host, 10.0.0.5:19870, [::1]:19870)", required: true }],
  flags: [
    { name: "device", type: "boolean", summary: "Sign in with the device flow even where password sign-in is offered" },
    { name: "mode", type: "string", valueName: "MODE", choices: ["project_direct", "worktree_backed"], summary: "How new sessions run: in the project directory (default) or in a git worktree of it" },
  ],
  examples: ["agent connect build-host", "agent connect 127.0.0.1:19870", "agent connect gw.example.com:443 --device"],
  run: async (args, io) => (await import("./connect-run.ts")).connectRun(args, io),
};
