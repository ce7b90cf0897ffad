// A server's lists, every page: its tools (and which of them the model is offered: not blocked, no two
// with the same engine name), resources, resource templates and prompts, in the manager's shapes.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Tool } from "../tools/tool.ts";
import { NO_SDK_TIMEOUT } from "./timeouts.ts";
import { engineToolName, type McpCall, type OutputLimits, toEngineTool } from "./tools.ts";
import type { McpPromptEntry, McpResourceEntry, McpResourceTemplateEntry } from "./types.ts";

/** Every item of a paged list: `page` is asked with the cursor of the page before it until none is given. */
async function allPages<T>(page: (params: { cursor: string } | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const p = await page(cursor ? { cursor } : undefined);
    out.push(...p.items);
    cursor = p.nextCursor;
  } while (cursor);
  return out;
}

/** Every page of the server's tools; a list-changed notification asks again. */
export function listAllTools(client: Client): Promise<McpTool[]> {
  return allPages(async (params) => {
    const p = await client.listTools(params, { timeout: NO_SDK_TIMEOUT });
    return { items: p.tools, nextCursor: p.nextCursor };
  });
}

/**
 * The engine tools the model is offered from a server's list: blocked names left out, and two tools whose
 * names become the same after unsafe characters are replaced (they would shadow one another) both left out,
 * with a warning that says which.
 */
export function offeredTools(server: string, tools: readonly McpTool[], blocked: ReadonlySet<string>, call: McpCall, limits: OutputLimits): { tools: Tool[]; warnings: string[] } {
  const offered = tools.filter((t) => !blocked.has(engineToolName(server, t.name)) && !blocked.has(`mcp__${server}__${t.name}`));
  const byName = new Map<string, string[]>();
  for (const t of offered) byName.set(engineToolName(server, t.name), [...(byName.get(engineToolName(server, t.name)) ?? []), t.name]);
  const warnings = [...byName].filter(([, names]) => names.length > 1).map(([name, names]) => `the tools ${names.map((n) => `"${n}"`).join(" and ")} would both be named ${name}; neither is offered`);
  return { tools: offered.filter((t) => byName.get(engineToolName(server, t.name))!.length === 1).map((t) => toEngineTool(server, t, call, limits)), warnings };
}

export function listResources(client: Client, server: string, timeout: number): Promise<McpResourceEntry[]> {
  return allPages(async (params) => {
    const p = await client.listResources(params, { timeout });
    const items = p.resources.map((r) => ({ server, uri: r.uri, name: r.name, ...(r.title ? { title: r.title } : {}), ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}) }));
    return { items, nextCursor: p.nextCursor };
  });
}

export function listResourceTemplates(client: Client, server: string, timeout: number): Promise<McpResourceTemplateEntry[]> {
  return allPages(async (params) => {
    const p = await client.listResourceTemplates(params, { timeout });
    return { items: p.resourceTemplates.map((t) => ({ server, uriTemplate: t.uriTemplate, name: t.name, ...(t.description ? { description: t.description } : {}) })), nextCursor: p.nextCursor };
  });
}

export function listPrompts(client: Client, server: string, timeout: number): Promise<McpPromptEntry[]> {
  return allPages(async (params) => {
    const page = await client.listPrompts(params, { timeout });
    const items = page.prompts.map((p) => ({ server, name: p.name, ...(p.description ? { description: p.description } : {}), arguments: (p.arguments ?? []).map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), ...(a.required ? { required: true } : {}) })) }));
    return { items, nextCursor: page.nextCursor };
  });
}
