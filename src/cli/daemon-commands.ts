// `agent daemon`: one session's daemon process (started by `agent new` / `agent continue` and the gateway).
import type { CommandSpec } from "../util/cli-command.ts";
import { RUN_PERMISSION_FLAGS } from "./run-permission-flags.ts";

export const daemonCommand: CommandSpec = {
  name: "daemon",
  summary: "Run the session daemon for one session directory (usually started for you by 'agent new')",
  description: `
Serves one session over HTTP on 127.0.0.1 (client-protocol.md). Every request needs
'Authorization: Bearer <token>' with the token of the credential file: JSON {"token": "..."}, mode 600,
in a directory of mode 700 (or name the file in AGENT_DAEMON_CREDENTIAL_FILE). Without a loadable
credential the daemon does not start. When ready it prints one JSON line {"port","pid","epoch"} on stdout
and writes the same to <session-dir>/daemon.json. SIGTERM stops it (the session stays resumable); SIGHUP
reloads the config behind GET /daemon-state.`,
  flags: [
    { name: "session-dir", type: "string", valueName: "D", summary: "The session directory (created with a new session when empty)" },
    { name: "credential-file", type: "string", valueName: "F", summary: "The credential file (default: $AGENT_DAEMON_CREDENTIAL_FILE)" },
    { name: "port", type: "string", valueName: "N", summary: "Port on 127.0.0.1 (default 0: a free port)" },
    { name: "project", type: "string", valueName: "DIR", summary: "Project directory of a new session (default: the working directory)" },
    { name: "config", type: "string", valueName: "FILE", summary: "Config file used in place of the global config (the gateway passes its configuration's file)" },
    { name: "demo", type: "boolean", summary: "Use the offline demo provider (scripted answers, no account)" },
    { name: "auth-dir", type: "string", valueName: "DIR", summary: "Provider auth profiles directory, profiles in DIR/providers/ (default: <data root>/auth; the gateway passes daemon_sessions.auth_dir)" },
    ...RUN_PERMISSION_FLAGS,
  ],
  examples: ["agent daemon --session-dir ~/.local/share/agent/sessions/ses_... --credential-file .../credential.json"],
  run: async (args, io) => {
    // Loading the daemon's modules is run-once code: kept out of the JIT it maps less of the executable
    // in (about 4 MB of idle RSS, docs/decisions-daemon.md 24); daemon-run restores 1 once it is ready.
    Bun.unsafe.setJITPolicy(100);
    return (await import("./daemon-run.ts")).daemonRun(args, io);
  },
};
