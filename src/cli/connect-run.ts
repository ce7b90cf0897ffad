// `agent connect`: reach and trust the gateway, sign in, pick a session in the Ink picker, then open the
// same conversation view as local sessions on a DaemonClient that goes through the gateway's session
// proxy (pinned transport, refreshed gateway token). Detaching leaves the session running and ends the
// command; /kill-session stops it through the gateway first.
import { CliError, EXIT, type Io, type ParsedArgs } from "../util/cli-command.ts";
import { connectTransport, parseTarget, signIn } from "./connect-auth.ts";
import { GatewaySessions, type ProxiedSessionClient } from "./connect-sessions.ts";
import { withIdleTrim } from "./tui-memory.ts";

export async function connectRun(args: ParsedArgs, io: Io): Promise<number> {
  const target = parseTarget(args.positionals[0] ?? "");
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const transport = await connectTransport(target, io, interactive);
  if (!interactive) throw new CliError("agent connect needs a terminal (its picker and conversation view are interactive); scripts use 'agent gateway session' and the gateway's HTTP API", EXIT.usage);
  const signed = await signIn(target, transport, io, { device: args.flags.device === true });
  const token = () => signed.client.accessToken();
  const sessions = new GatewaySessions({ baseUrl: target.baseUrl, fetch: transport, token });
  const mode = args.flags.mode === "worktree_backed" ? "worktree_backed" : "project_direct";

  const { runPicker } = await import("../../tui/connect/run-picker.tsx");
  const sessionId = await runPicker({
    title: `${signed.name} · ${target.label}${signed.username ? ` · signed in as ${signed.username}` : ""}`,
    get: async (path, signal) => transport(`${target.baseUrl}${path}`, { signal, redirect: "manual", headers: { Authorization: `Bearer ${await token()}`, Accept: "application/json, text/event-stream" } }),
    attach: (s) => sessions.ensureRunning(s.session_id),
    create: (p) => sessions.create(p.project_id, mode),
  });
  if (!sessionId) {
    io.out("Cancelled.\n");
    return EXIT.ok;
  }

  const client = sessions.client(sessionId) as ProxiedSessionClient;
  const { runTui } = await import("../../tui/run.tsx");
  const code = await withIdleTrim(() => runTui({
    client,
    sessionId,
    where: `gateway ${signed.name} (${target.label})`,
    killQuestion: `Stop this session? Its daemon exits; Enter on it in the picker of 'agent connect ${target.label}' resumes it.`,
    reattach: `agent connect ${target.label} (then pick ${sessionId})`,
  }));
  return code;
}
