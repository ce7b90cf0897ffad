// `agent gateway session list|create|stop|resume|rm` (http): scripting sessions on a running gateway.
// `create --wait` polls until the daemon runs (exit 0) or failed (exit 1, with the reason).
import { CliError, EXIT, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { printJson, printTable, wantsJson } from "../admin/format.ts";
import { resolveGatewayTarget, type GatewayTarget, type TargetOptions } from "../admin/http-target.ts";
import type { SessionView } from "./registry.ts";
import { LAUNCH_MODES } from "./transitions.ts";

const path = (id: string, tail = "") => `/api/v1/sessions/${encodeURIComponent(id)}${tail}`;

function describe(s: SessionView): string {
  const last = s.transitions.at(-1);
  const why = s.state === "failed" && last?.detail ? ` (${last.detail})` : "";
  return `${s.id} ${s.state}${why}`;
}

function show(args: ParsedArgs, io: Io, s: SessionView, verb: string): void {
  if (wantsJson(args)) printJson(io, s);
  // "Stopped session X", not "Stopped session X stopped": the state is shown when the verb does not say it.
  else io.out(s.state === verb.toLowerCase() ? `${verb} session ${s.id}\n` : `${verb} session ${s.id} (${describe(s).slice(s.id.length + 1)})\n`);
}

export async function list(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const target = await resolveGatewayTarget(args, io, options);
  const sessions = await target.request<SessionView[]>("GET", "/api/v1/sessions");
  if (wantsJson(args)) printJson(io, sessions);
  else printTable(io, ["ID", "STATE", "PROJECT", "MODE", "PORT", "CREATED"], sessions.map((s) => [s.id, s.state, s.project_id, s.launch_mode, s.port === null ? null : String(s.port), s.created_at]), "No sessions.");
  return EXIT.ok;
}

async function waitSettled(target: GatewayTarget, id: string, io: Io, args: ParsedArgs): Promise<SessionView> {
  const spinner = io.isTty && !wantsJson(args) ? (await import("@clack/prompts")).spinner({ output: process.stderr }) : null;
  spinner?.start(`starting session ${id}`);
  try {
    for (;;) {
      const s = await target.request<SessionView>("GET", path(id));
      if (s.state !== "starting") return s;
      await Bun.sleep(250);
    }
  } finally {
    spinner?.stop(`session ${id}`);
  }
}

export async function create(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const mode = (args.flags.mode as string | undefined) ?? "project_direct";
  if (!LAUNCH_MODES.includes(mode as (typeof LAUNCH_MODES)[number])) throw new CliError(`--mode must be one of ${LAUNCH_MODES.join(", ")} (got '${mode}')`, EXIT.usage);
  const target = await resolveGatewayTarget(args, io, options);
  let session = await target.request<SessionView>("POST", "/api/v1/sessions", { project_id: args.positionals[0]!, launch_mode: mode });
  if (args.flags.wait === true) session = await waitSettled(target, session.id, io, args);
  show(args, io, session, "Created");
  return session.state === "failed" ? EXIT.failure : EXIT.ok;
}

export async function stop(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const target = await resolveGatewayTarget(args, io, options);
  show(args, io, await target.request<SessionView>("POST", path(args.positionals[0]!, "/stop")), "Stopped");
  return EXIT.ok;
}

export async function resume(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const target = await resolveGatewayTarget(args, io, options);
  show(args, io, await target.request<SessionView>("POST", path(args.positionals[0]!, "/resume")), "Resumed");
  return EXIT.ok;
}

export async function remove(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const id = args.positionals[0]!;
  const target = await resolveGatewayTarget(args, io, options);
  await target.request("DELETE", path(id));
  if (wantsJson(args)) printJson(io, { removed: id });
  else io.out(`Removed session ${id}\n`);
  return EXIT.ok;
}
