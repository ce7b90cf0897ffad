// Output for admin commands: aligned tables for people, JSON for scripts.
import type { Io, ParsedArgs } from "../../util/cli-command.ts";

export function wantsJson(args: ParsedArgs): boolean {
  return args.flags.json === true;
}

export function printJson(io: Io, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(io: Io, headers: string[], rows: Array<Array<string | null | undefined>>, empty = "(none)"): void {
  if (rows.length === 0) {
    io.out(`${empty}\n`);
    return;
  }
  const cells = rows.map((r) => r.map((c) => (c ?? "-").replace(/[\u0000-\u001f\u007f]/g, "?")));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  io.out(`${line(headers)}\n${cells.map(line).join("\n")}\n`);
}

export function iso(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}
