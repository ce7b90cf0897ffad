// A tool server's prompts as session commands: `/mcp__<server>__<prompt> args`. The list is kept current
// from the manager's change events (a server connecting, going, or announcing a new prompt list), so `GET
// /commands` stays synchronous. Running one fetches the prompt and sends its messages as the user's prompt.
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpManager } from "../../mcp/manager.ts";
import type { McpPromptEntry } from "../../mcp/types.ts";
import { SessionCommandError, type SessionCommand } from "./types.ts";

/** `mcp__<server>__<prompt>`, with characters a slash command cannot hold replaced by `_` (as tool names). */
export function promptCommandName(server: string, prompt: string): string {
  return `mcp__${server}__${prompt}`.replace(/[^A-Za-z0-9_-]/g, "_");
}

function usageOf(name: string, p: McpPromptEntry): string {
  const args = p.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`));
  return [`/${name}`, ...args].join(" ");
}

function summaryOf(p: McpPromptEntry): string {
  const about = p.description ?? `prompt ${p.name} of the tool server ${p.server}`;
  const args = p.arguments.filter((a) => a.description).map((a) => `${a.name}: ${a.description}`);
  return args.length ? `${about} (${args.join("; ")})` : about;
}

/**
 * `key=value` for a declared argument name, otherwise positional in the declared order; a value with
 * spaces is quoted by the client (`city="New York"`). Required arguments must be given.
 */
export function promptArguments(p: McpPromptEntry, usage: string, args: readonly string[]): Record<string, string> {
  const declared = p.arguments.map((a) => a.name);
  const out: Record<string, string> = {};
  const positional: string[] = [];
  for (const arg of args) {
    const eq = arg.indexOf("=");
    const key = eq > 0 ? arg.slice(0, eq) : "";
    if (key && declared.includes(key)) out[key] = arg.slice(eq + 1);
    else positional.push(arg);
  }
  const open = declared.filter((n) => !(n in out));
  if (positional.length > open.length) {
    const extra = positional.slice(open.length).join(" ");
    throw new SessionCommandError("invalid_command", `too many arguments (${extra}); usage: ${usage}${declared.length ? ` (or name=value for ${declared.join(", ")})` : ""}`);
  }
  positional.forEach((value, i) => (out[open[i]!] = value));
  const missing = p.arguments.filter((a) => a.required && !(a.name in out)).map((a) => a.name);
  if (missing.length) throw new SessionCommandError("invalid_command", `missing ${missing.join(", ")}; usage: ${usage}`);
  return out;
}

/** The prompt's messages as one user prompt: text as written; a mixed conversation keeps who says what. */
export function promptText(result: GetPromptResult): { text: string; images: { media_type: string; data_base64: string }[] } {
  const mixed = result.messages.some((m) => m.role !== "user");
  const images: { media_type: string; data_base64: string }[] = [];
  const parts = result.messages.map((m) => {
    const c = m.content as { type: string; text?: string; data?: string; mimeType?: string; uri?: string; name?: string; resource?: { uri: string; text?: string; mimeType?: string } };
    let text: string;
    if (c.type === "text") text = c.text ?? "";
    else if (c.type === "image" && c.data && c.mimeType) {
      images.push({ media_type: c.mimeType, data_base64: c.data });
      text = "[image attached]";
    } else if (c.type === "resource" && c.resource) text = c.resource.text !== undefined ? `${c.resource.uri}:\n${c.resource.text}` : `[resource ${c.resource.uri} (${c.resource.mimeType ?? "binary"}) not shown]`;
    else if (c.type === "resource_link") text = `[resource ${c.name ?? ""} ${c.uri ?? ""}]`.replace("  ", " ");
    else text = `[${c.type} content not shown]`;
    return mixed ? `${m.role === "user" ? "User" : "Assistant"}: ${text}` : text;
  });
  return { text: parts.join("\n\n"), images };
}

function promptCommand(mcp: McpManager, p: McpPromptEntry, name: string): SessionCommand {
  const usage = usageOf(name, p);
  return {
    name,
    usage,
    summary: summaryOf(p),
    // The prompt queues behind a running turn like typed text.
    whileBusy: true,
    async run({ session }, args) {
      const values = promptArguments(p, usage, args);
      let result: GetPromptResult;
      try {
        result = await mcp.getPrompt(p.server, p.name, values);
      } catch (error) {
        throw new SessionCommandError("command_failed", `the tool server ${p.server} could not give the prompt ${p.name}: ${(error as Error)?.message ?? String(error)}`);
      }
      const { text, images } = promptText(result);
      if (!text.trim() && !images.length) throw new SessionCommandError("command_failed", `the prompt ${p.name} of ${p.server} has no messages; nothing was sent`);
      const accepted = session.submit({ text, ...(images.length ? { images } : {}) });
      return { message: `sent the prompt ${p.name} of ${p.server}${accepted.queued ? " (queued behind the running turn)" : ""}`, data: { prompt_id: accepted.input_id, queued: accepted.queued } };
    },
  };
}

/** The prompt commands of connected servers, refreshed on every server change. */
export function mcpPromptCommands(mcp: McpManager): { commands(): readonly SessionCommand[]; refresh(): Promise<void>; stop(): void } {
  let list: readonly SessionCommand[] = [];
  let generation = 0;
  const refresh = async () => {
    const mine = ++generation;
    const prompts = await mcp.prompts().catch(() => []);
    if (mine !== generation) return;
    const seen = new Set<string>();
    list = prompts.flatMap((p) => {
      const name = promptCommandName(p.server, p.name);
      // Two prompts whose names collide once sanitized: the first keeps the name (tools are withheld; a prompt is only offered).
      if (seen.has(name)) return [];
      seen.add(name);
      return [promptCommand(mcp, p, name)];
    });
  };
  const stops = [mcp.onChange(() => void refresh()), mcp.onPromptsChange(() => void refresh())];
  return { commands: () => list, refresh, stop: () => stops.forEach((s) => s()) };
}
