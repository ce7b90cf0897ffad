// How one of our tool calls looks in the editor: its ACP kind, a title, the files it touches
// (locations, so the editor can follow along) and, for edits, diff content. A diff of a live call is
// computed from the file on disk before the tool runs (the agent runs on the same machine as the
// session's daemon); during history replay the file has moved on, so only the call's own text is shown.
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { BUILTIN_TOOL_TRAITS, type ToolTraitTable } from "../protocol/tool-traits.ts";

export interface ToolView {
  kind: ToolKind;
  title: string;
  locations: ToolCallLocation[];
  content: ToolCallContent[];
}


/** Tools whose calls are shown another way: as the plan (plan_updated records; progress_update lines while there is none). */
export const HIDDEN_TOOLS: ReadonlySet<string> = new Set(["progress_update", "plan"]);

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The kind the tool's traits declare; `other` for tools without traits (MCP, extensions). */
export function toolKind(name: string, traits: ToolTraitTable = BUILTIN_TOOL_TRAITS): ToolKind {
  return Object.hasOwn(traits, name) ? traits[name]!.acpKind : "other";
}

/** The view of a call from its name and (possibly still partial) arguments. `live`: read files for diffs. */
export function toolView(name: string, args: Record<string, unknown>, cwd: string, live: boolean): ToolView {
  const kind = toolKind(name);
  const at = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  const path = str(args.path);
  const locations: ToolCallLocation[] = path ? [{ path: at(path), ...(typeof args.offset === "number" ? { line: args.offset } : {}) }] : [];
  const content: ToolCallContent[] = [];
  let title = name;
  switch (name) {
    case "shell":
      title = str(args.command) ?? "shell";
      break;
    case "read":
      title = path ? `Read ${path}` : "Read";
      break;
    case "write":
      title = path ? `Write ${path}` : "Write";
      if (path && typeof args.content === "string") {
        // A file that already holds the new text was written before this record arrived: its old text is gone.
        const before = live ? readOr(at(path), null) : null;
        content.push({ type: "diff", path: at(path), oldText: before === args.content ? null : before, newText: args.content });
      }
      break;
    case "edit":
      title = path ? `Edit ${path}` : "Edit";
      if (path && typeof args.old_string === "string" && typeof args.new_string === "string") content.push(replaceDiff(at(path), args.old_string, args.new_string, args.replace_all === true, live));
      else if (typeof args.patch === "string") content.push({ type: "content", content: { type: "text", text: "```diff\n" + args.patch + "\n```" } });
      break;
    case "apply_patch":
      title = "Apply patch";
      if (typeof args.input === "string") content.push({ type: "content", content: { type: "text", text: "```diff\n" + args.input + "\n```" } });
      break;
    case "glob":
      title = `Find ${str(args.pattern) ?? "files"}${path ? ` in ${path}` : ""}`;
      break;
    case "grep":
      title = `Search ${str(args.pattern) ?? ""}${path ? ` in ${path}` : ""}`.trim();
      break;
    case "web_fetch":
      title = `Fetch ${str(args.url) ?? ""}`.trim();
      break;
    case "web_search":
      title = `Search the web: ${str(args.query) ?? ""}`.trim();
      break;
    case "task":
      title = str(args.description) ?? "Subagent";
      break;
  }
  return { kind, title, locations, content };
}

/** The whole file before and after a replacement when it can be read; else the two snippets. */
function replaceDiff(path: string, oldString: string, newString: string, all: boolean, live: boolean): ToolCallContent {
  const before = live ? readOr(path, null) : null;
  if (before !== null && oldString !== "" && before.includes(oldString)) {
    const after = all ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
    return { type: "diff", path, oldText: before, newText: after };
  }
  // The edit ran before this record arrived: the file holds the new text; put the old one back for the diff.
  if (before !== null && newString !== "" && before.includes(newString)) {
    const old = all ? before.split(newString).join(oldString) : before.replace(newString, () => oldString);
    return { type: "diff", path, oldText: old, newText: before };
  }
  return { type: "diff", path, oldText: oldString === "" ? null : oldString, newText: newString };
}

function readOr<T>(path: string, fallback: T): string | T {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return fallback;
  }
}

/** The most of a tool's output sent to the editor (the model got its own bounded copy). */
const OUTPUT_MAX = 64 * 1024;

export function outputContent(output: string): ToolCallContent[] {
  if (output === "") return [];
  const text = output.length > OUTPUT_MAX ? `${output.slice(0, OUTPUT_MAX)}\n… (${output.length - OUTPUT_MAX} more characters)` : output;
  return [{ type: "content", content: { type: "text", text: "```\n" + text + "\n```" } }];
}
