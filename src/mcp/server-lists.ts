// A server's lists, every page: its tools (and which of them the model is offered: not blocked, no two
// with the same engine name), resources, resource templates and prompts, in the manager's shapes.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Tool } from "../tools/tool.ts";
import { NO_SDK_TIMEOUT } from "./timeouts.ts";
import { engineToolName, type McpCall, type OutputLimits, toEngineTool } from "./tools.ts";
import type { McpPromptEntry, McpResourceEntry, McpResourceTemplateEntry } from "./types.ts";

/** Every page of the server's tools; a list-changed notification asks again. */
export async function listAllTools(client: Client): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: NO_SDK_TIMEOUT });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
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

export async function listResources(client: Client, server: string, timeout: number): Promise<McpResourceEntry[]> {
  const out: McpResourceEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResources(cursor ? { cursor } : undefined, { timeout });
    for (const r of page.resources) out.push({ server, uri: r.uri, name: r.name, ...(r.title ? { title: r.title } : {}), ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}) });
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

export async function listResourceTemplates(client: Client, server: string, timeout: number): Promise<McpResourceTemplateEntry[]> {
  const out: McpResourceTemplateEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResourceTemplates(cursor ? { cursor } : undefined, { timeout });
    for (const t of page.resourceTemplates) out.push({ server, uriTemplate: t.uriTemplate, name: t.name, ...(t.description ? { description: t.description } : {}) });
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

export async function listPrompts(client: Client, server: string, timeout: number): Promise<McpPromptEntry[]> {
  const out: McpPromptEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listPrompts(cursor ? { cursor } : undefined, { timeout });
    for (const p of page.prompts) out.push({ server, name: p.name, ...(p.description ? { description: p.description } : {}), arguments: (p.arguments ?? []).map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), ...(a.required ? { required: true } : {}) })) });
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
