// A tool server's request for input (MCP elicitation) as an interrogative: the client shows the form, and
// the person's answer (accept with the fields, decline, cancel) goes back to the server.
import type { McpElicitation, McpElicitationAnswer } from "../mcp/types.ts";
import type { AgentSession } from "./session.ts";

export async function askForm(session: AgentSession, request: McpElicitation, signal: AbortSignal): Promise<McpElicitationAnswer> {
  const answer = await session.elicit({ kind: "elicitation", server: request.server, message: request.message, requested_schema: request.requestedSchema }, signal);
  if (answer?.decision === "accept") return { action: "accept", content: answer.content };
  if (answer?.decision === "cancel") return { action: "cancel" };
  return { action: "decline" };
}
