import type { CommandSpec } from "../util/cli-command.ts";

function table(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}`).join("\n");
}

export function renderHelp(command: CommandSpec, path: string[]): string {
  const name = ["agent", ...path].join(" ");
  const positionals = (command.positionals ?? []).map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`));
  const usage = command.subcommands
    ? `${name} <command> [flags]`
    : [name, ...((command.flags ?? []).length ? ["[flags]"] : []), ...positionals].join(" ");
  const parts = [`${command.summary}\n`, `Usage: ${usage}`];
  if (command.description) parts.push(`\n${command.description.trim()}`);
  if (command.subcommands?.length) {
    parts.push(`\nCommands:\n${table(command.subcommands.map((c) => [c.name, c.summary]))}`);
  }
  if (command.positionals?.length) {
    parts.push(`\nArguments:\n${table(command.positionals.map((p) => [p.name, p.summary]))}`);
  }
  const flags = (command.flags ?? []).map((f): [string, string] => {
    const value = f.type === "string" ? ` ${f.valueName ?? (f.choices ? f.choices.join("|") : "VALUE")}` : "";
    return [`--${f.name}${value}`, f.summary];
  });
  flags.push(["-h, --help", "Show help for this command"]);
  if (path.length === 0) flags.push(["--version", "Print the version and exit"]);
  parts.push(`\nFlags:\n${table(flags)}`);
  if (command.examples?.length) parts.push(`\nExamples:\n${command.examples.map((e) => `  ${e}`).join("\n")}`);
  if (command.subcommands?.length) parts.push(`\nRun '${name} <command> --help' for more about a command.`);
  return `${parts.join("\n")}\n`;
}
