// The session's commands (/compact, /clear, /facet, /model, /mcp, ...) as ACP available commands; a
// prompt that is one of them runs it (the same route the TUI uses) and its message is the answer.
import type { PromptResponse } from "@agentclientprotocol/sdk";
import type { DaemonPrompt } from "./prompt-content.ts";
import type { SessionLink } from "./session-link.ts";

export async function sendCommandList(link: SessionLink): Promise<void> {
  try {
    const { commands } = await link.client.commands();
    link.send({ sessionUpdate: "available_commands_update", availableCommands: commands.map((c) => ({ name: c.name, description: c.summary, input: { hint: c.usage } })) });
  } catch {
    // A stopped session offers no commands until a prompt starts it again.
  }
}

/** Runs `/name args` when the prompt is exactly a known session command; null otherwise (a prompt). */
export async function slashCommand(link: SessionLink, input: DaemonPrompt): Promise<PromptResponse | null> {
  const match = /^\/([A-Za-z0-9][\w:-]*)(?:\s+([\s\S]*))?$/.exec(input.text.trim());
  if (!match || input.images.length > 0) return null;
  const known = await link.client.commands().catch(() => ({ commands: [] as { name: string }[] }));
  if (!known.commands.some((c) => c.name === match[1])) return null;
  const args = (match[2] ?? "").split(/\s+/).filter(Boolean);
  const done = await link.command(match[1]!, args);
  await link.refreshActive();
  link.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: done.message } });
  return { stopReason: "end_turn" };
}
