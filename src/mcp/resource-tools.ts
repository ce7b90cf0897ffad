// Resources for the model: `list_mcp_resources` and `read_mcp_resource`, offered while some connected
// server has resources. A read is a tool result like any other: its text counts under the server's
// max_output_bytes (head and tail kept, the whole text in a file the model can page through).
import { Type } from "@sinclair/typebox";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { defineTool, toolError, type Tool } from "../tools/tool.ts";
import { toToolResult, type OutputLimits } from "./tools.ts";
import type { McpResourceEntry, McpResourceTemplateEntry } from "./types.ts";

export interface ResourceSource {
  /** Servers that are connected and offer resources. */
  servers(): string[];
  resources(server?: string): Promise<McpResourceEntry[]>;
  resourceTemplates(server?: string): Promise<McpResourceTemplateEntry[]>;
  read(server: string, uri: string, signal: AbortSignal): Promise<{ contents: { uri: string; mimeType?: string; text?: string; blob?: string }[] }>;
  limits(server: string): OutputLimits;
}

export const LIST_RESOURCES_TOOL = "list_mcp_resources";
export const READ_RESOURCE_TOOL = "read_mcp_resource";

export function resourceTools(source: ResourceSource): Tool[] {
  const unknownServer = (server: string) => {
    const known = source.servers();
    return toolError(`No connected tool server named \`${server}\` offers resources. Servers with resources: ${known.length > 0 ? known.join(", ") : "none"}.`);
  };
  const list = defineTool({
    name: LIST_RESOURCES_TOOL,
    description:
      "Lists the resources (files, records, documents) that connected tool servers (MCP) offer, with their URIs, and the URI templates they accept. Read one with read_mcp_resource.",
    inputSchema: Type.Object({ server: Type.Optional(Type.String({ description: "Only this server's resources." })) }),
    async run(input, ctx) {
      if (input.server && !source.servers().includes(input.server)) return unknownServer(input.server);
      const [resources, templates] = await Promise.all([source.resources(input.server), source.resourceTemplates(input.server)]);
      if (resources.length === 0 && templates.length === 0) return { output: "No resources are offered." };
      const lines = resources.map((r) => `${r.server}  ${r.uri}  ${r.title ?? r.name}${r.mimeType ? ` (${r.mimeType})` : ""}${r.description ? ` — ${r.description.split("\n")[0]}` : ""}`);
      if (templates.length > 0) lines.push("", "URI templates (fill in the {placeholders}):", ...templates.map((t) => `${t.server}  ${t.uriTemplate}  ${t.name}${t.description ? ` — ${t.description.split("\n")[0]}` : ""}`));
      const server = input.server ?? source.servers()[0]!;
      return toToolResult({ content: [{ type: "text", text: lines.join("\n") }] }, ctx, { server, tool: LIST_RESOURCES_TOOL }, source.limits(server));
    },
  });
  const read = defineTool({
    name: READ_RESOURCE_TOOL,
    description:
      "Reads one resource of a tool server (MCP) by its URI, as listed by list_mcp_resources (or built from one of its URI templates). A mention `@<server>:<uri>` in the user's message names a resource: read it with this tool (server, uri) when you need its content.",
    inputSchema: Type.Object({ server: Type.String({ description: "The server offering it." }), uri: Type.String({ description: "The resource's URI." }) }),
    async run(input, ctx, signal) {
      if (!source.servers().includes(input.server)) return unknownServer(input.server);
      let result: Awaited<ReturnType<ResourceSource["read"]>>;
      try {
        result = await source.read(input.server, input.uri, signal);
      } catch (error) {
        return toolError(`Reading ${input.uri} from \`${input.server}\` failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      const content = result.contents.map((c) => ({ type: "resource" as const, resource: c }));
      if (content.length === 0) return { output: `${input.uri} is empty.` };
      return toToolResult({ content } as CallToolResult, ctx, { server: input.server, tool: READ_RESOURCE_TOOL }, source.limits(input.server));
    },
  });
  return [list as unknown as Tool, read as unknown as Tool];
}
