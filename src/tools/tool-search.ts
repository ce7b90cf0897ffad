// `tool_search`: finds tools by keywords over names and descriptions. With `tool_loading:
// native_deferred` the model starts with a few tools and the ones it finds here are offered from then on.
import { Type } from "@sinclair/typebox";
import { defineTool, toolJsonSchema, type Tool } from "./tool.ts";
import description from "./tool-search.txt" with { type: "text" };

export const TOOL_SEARCH_DEFAULT_LIMIT = 5;

export interface ToolSearchOptions {
  /** Every tool of the session (disabled tools are never in it). */
  tools: () => Tool[];
  /** Called with the names found, so a deferred session offers them from the next request. */
  onFound?: (names: string[]) => void;
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1);
}

/** Name hits count more than description hits; every query word that matches adds to the score. */
function score(tool: Tool, query: string[]): number {
  const name = tool.name.toLowerCase();
  const desc = tool.description.toLowerCase();
  let s = 0;
  for (const w of query) {
    if (name === w) s += 10;
    else if (name.includes(w)) s += 5;
    if (desc.includes(w)) s += 1;
  }
  return s;
}

export function createToolSearchTool(options: ToolSearchOptions) {
  return defineTool({
    name: "tool_search",
    description,
    inputSchema: Type.Object(
      {
        query: Type.String({ minLength: 1, description: "Keywords describing the tool you need." }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: `How many tools to return (default ${TOOL_SEARCH_DEFAULT_LIMIT}).` })),
      },
      { additionalProperties: false },
    ),
    async run(input) {
      const query = words(input.query);
      if (query.length === 0) return { output: "The query has no searchable words; describe the tool in a few keywords.", isError: true };
      const ranked = options
        .tools()
        .filter((t) => t.name !== "tool_search")
        .map((t) => ({ t, s: score(t, query) }))
        .filter((r) => r.s > 0)
        .sort((a, b) => b.s - a.s || a.t.name.localeCompare(b.t.name))
        .slice(0, input.limit ?? TOOL_SEARCH_DEFAULT_LIMIT);
      if (ranked.length === 0) return { output: `No tool matches "${input.query}". Try other words, or do the task with the tools you have.`, metadata: { found: [] } };
      const names = ranked.map((r) => r.t.name);
      options.onFound?.(names);
      const blocks = ranked.map((r) => `## ${r.t.name}\n${r.t.description.trim()}\nInput schema: ${JSON.stringify(toolJsonSchema(r.t))}`);
      return { output: `Found ${names.length} tool(s); you can call them now.\n\n${blocks.join("\n\n")}`, metadata: { found: names } };
    },
  });
}
