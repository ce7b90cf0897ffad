// `agent gateway config register|list|show|remove` (http): the configuration registry of a running gateway.
import { readFileSync } from "node:fs";
import { extname, resolve } from "node:path";
import { CliError, EXIT, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import type { ConfigurationDetail, ConfigurationView } from "../registry/configurations.ts";
import type { RegistryFormat } from "../registry/config-content.ts";
import { printJson, printTable, wantsJson } from "./format.ts";
import { resolveGatewayTarget, type TargetOptions } from "./http-target.ts";

const path = (name: string) => `/api/v1/configurations/${encodeURIComponent(name)}`;

/** `.yaml`/`.yml` is yaml, `.toml` is toml; anything else needs `--format`. */
export function formatFor(file: string, explicit: string | undefined): RegistryFormat {
  if (explicit !== undefined) {
    if (explicit === "yaml" || explicit === "toml") return explicit;
    throw new CliError(`--format: ${JSON.stringify(explicit)} is not a configuration format (allowed: yaml, toml)`, EXIT.usage);
  }
  const ext = extname(file).toLowerCase();
  if (ext === ".yaml" || ext === ".yml") return "yaml";
  if (ext === ".toml") return "toml";
  throw new CliError(`--file: cannot tell the format of ${file} from its extension ${ext || "(none)"}; name it .yaml, .yml or .toml, or pass --format yaml|toml`, EXIT.usage);
}

function readText(file: string, flag: string, io: Io): string {
  const full = resolve(io.cwd, file);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(readFileSync(full));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new CliError(`${flag}: ${full} does not exist`, EXIT.usage);
    if (code === "EISDIR") throw new CliError(`${flag}: ${full} is a directory, not a file`, EXIT.usage);
    if (code) throw new CliError(`${flag}: cannot read ${full} (${code})`);
    throw new CliError(`${flag}: ${full} is not valid UTF-8 text`, EXIT.usage);
  }
}

const yesNo = (b: boolean) => (b ? "yes" : "no");

export async function register(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const name = args.positionals[0]!;
  const file = args.flags.file as string | undefined;
  if (!file) throw new CliError("--file PATH is required: the config file to register (.yaml, .yml or .toml)", EXIT.usage);
  const format = formatFor(file, args.flags.format as string | undefined);
  const content = readText(file, "--file", io);
  const preRun = args.flags["pre-run"] as string | undefined;
  const body = { name, config_content: content, config_format: format, ...(preRun ? { pre_run_script: readText(preRun, "--pre-run", io) } : {}) };
  const target = await resolveGatewayTarget(args, io, options);
  const created = await target.request<ConfigurationView>("POST", "/api/v1/configurations", body);
  if (wantsJson(args)) printJson(io, created);
  else io.out(`Registered configuration ${created.name} (${created.format}${created.has_pre_run_script ? ", with pre-run.sh" : ""}) on ${target.baseUrl}\n`);
  return EXIT.ok;
}

export async function list(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const target = await resolveGatewayTarget(args, io, options);
  const configs = await target.request<ConfigurationView[]>("GET", "/api/v1/configurations");
  if (wantsJson(args)) printJson(io, configs);
  else printTable(io, ["NAME", "FORMAT", "PROJECTS", "PRE-RUN", "UPDATED"], configs.map((c) => [c.name, c.format, String(c.bound_projects), yesNo(c.has_pre_run_script), c.updated_at]), "No configurations registered.");
  return EXIT.ok;
}

export async function show(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const target = await resolveGatewayTarget(args, io, options);
  const c = await target.request<ConfigurationDetail>("GET", path(args.positionals[0]!));
  if (wantsJson(args)) return (printJson(io, c), EXIT.ok);
  io.out(`Name:      ${c.name}\nFormat:    ${c.format}\nProjects:  ${c.bound_projects}\nCreated:   ${c.created_at}\nUpdated:   ${c.updated_at}\n\n--- config.${c.format}\n${c.config_content}${c.config_content.endsWith("\n") ? "" : "\n"}`);
  if (c.pre_run_script !== null) io.out(`--- pre-run.sh\n${c.pre_run_script}${c.pre_run_script.endsWith("\n") ? "" : "\n"}`);
  return EXIT.ok;
}

export async function remove(args: ParsedArgs, io: Io, options: TargetOptions = {}): Promise<number> {
  const name = args.positionals[0]!;
  const target = await resolveGatewayTarget(args, io, options);
  await target.request("DELETE", path(name));
  if (wantsJson(args)) printJson(io, { removed: name });
  else io.out(`Removed configuration ${name}\n`);
  return EXIT.ok;
}
