// `agent gateway project register|list|remove` (http). The path is a path on the gateway machine: the
// gateway checks that it exists and canonicalizes it, not this client.
import { CliError, EXIT, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import type { ProjectView } from "../registry/projects.ts";
import { printJson, printTable, wantsJson } from "./format.ts";
import { resolveGatewayTarget, type TargetOptions } from "./http-target.ts";

export async function register(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const configName = args.flags["config-name"] as string | undefined;
  if (!configName) throw new CliError("--config-name NAME is required: the registered configuration the project's sessions use", EXIT.usage);
  const target = await resolveGatewayTarget(args, io, options);
  const project = await target.request<ProjectView>("POST", "/api/v1/projects", { path: args.positionals[0]!, config_name: configName });
  if (wantsJson(args)) printJson(io, project);
  else io.out(`Registered project ${project.id}: ${project.path} (configuration ${project.config_name})\n`);
  return EXIT.ok;
}

export async function list(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const target = await resolveGatewayTarget(args, io, options);
  const projects = await target.request<ProjectView[]>("GET", "/api/v1/projects");
  if (wantsJson(args)) printJson(io, projects);
  else {
    const hooks = (p: ProjectView) => (p.hook_status.has_gateway_yaml ? p.hook_status.configured_hooks.join(",") || "(none)" : "-");
    printTable(io, ["ID", "CONFIG", "HOOKS", "PATH"], projects.map((p) => [p.id, p.config_name, hooks(p), p.path]), "No projects registered.");
  }
  return EXIT.ok;
}

export async function remove(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const id = args.positionals[0]!;
  const target = await resolveGatewayTarget(args, io, options);
  await target.request("DELETE", `/api/v1/projects/${encodeURIComponent(id)}`);
  if (wantsJson(args)) printJson(io, { removed: id });
  else io.out(`Removed project ${id}\n`);
  return EXIT.ok;
}
