// Spans for tool-server (MCP) calls: each `tools/call` a client span under the engine's tool-call span
// (found by the call id in the tool context), with the server and tool names (MCP semantic conventions'
// mcp.method.name); never arguments or results.
import type { Tool } from "../tools/tool.ts";
import { toolCallSpan } from "./engine-spans.ts";
import type { Tracer } from "./tracer.ts";

export function traceMcpTools(tracer: Tracer | undefined, server: string, tools: Tool[]): Tool[] {
  if (!tracer?.enabled) return tools;
  return tools.map((tool) => ({
    ...tool,
    run: (input, ctx, signal) =>
      tracer.run(
        `tools/call ${tool.name}`,
        { "mcp.method.name": "tools/call", "agent.mcp.server": server, "gen_ai.tool.name": tool.name },
        async (span) => {
          const result = await tool.run(input, ctx, signal);
          if (result.isError) span.fail("tool_error");
          return result;
        },
        "client",
        toolCallSpan(ctx.callId),
      ),
  }));
}
