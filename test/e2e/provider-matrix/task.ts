// What a matrix cell asks and what the scripted model answers: the tool task (read a file, edit it, run a
// command, answer: four requests, the last three carrying the earlier tool results and reasoning back)
// and the image task (read a PNG, answer). Written once, dialect-neutral (TurnSpec); each vendor's fake
// turns it into that vendor's stream.
import type { TurnSpec } from "../../fakes/turn-spec.ts";
import type { MatrixCell } from "./cells.ts";

export const NOTES = "# Release notes\nstatus: draft\nowner: matrix\n";
export const EDITED = "# Release notes\nstatus: final\nowner: matrix\n";
export const TOOL_PROMPT = "Read notes.txt, change its status to final, show the file with cat, then say what it says.";
export const TOOL_ANSWER = "notes.txt now says status: final.";
export const SHELL_COMMAND = "cat notes.txt";

/** A 1x1 red PNG (69 bytes). */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
export const IMAGE_PROMPT = "What colour is pixel.png?";
export const IMAGE_ANSWER = "pixel.png is one red pixel.";

/** The user's permission rules the task needs (exec cannot ask): the edit and the one command. */
export const PERMISSIONS = `allow:\n  - edit(notes.txt)\n  - shell(${SHELL_COMMAND})\n`;

/** A tool as the request offers it: its name and its arguments' schema, whatever the dialect's wrapping. */
export interface OfferedTool {
  name: string;
  schema: { properties?: Record<string, unknown> };
}

/** The tools of a request body: Messages `{name, input_schema}`, Chat Completions `{function: {name, parameters}}`, Responses `{name, parameters}`. */
export function offeredTools(body: any): OfferedTool[] {
  return (Array.isArray(body?.tools) ? body.tools : []).map((t: any) => ({
    name: t.function?.name ?? t.name,
    schema: t.function?.parameters ?? t.parameters ?? t.input_schema ?? {},
  }));
}

const PATCH = "*** Begin Patch\n*** Update File: notes.txt\n@@\n # Release notes\n-status: draft\n+status: final\n owner: matrix\n*** End Patch";

/**
 * The edit call, as a model makes it with the edit tool it was offered: `apply_patch` (one `input`
 * string), `edit` in patch form (`patch`), or `edit` by exact replacement (`old_string`/`new_string`).
 */
function editCall(cell: MatrixCell, offered: OfferedTool[]): { name: string; args: Record<string, unknown> } {
  const applyPatch = offered.find((t) => t.name === "apply_patch");
  if (applyPatch) return { name: "apply_patch", args: { input: PATCH } };
  const props = offered.find((t) => t.name === "edit")?.schema.properties ?? {};
  if ("patch" in props) return { name: "edit", args: { patch: PATCH } };
  if ("old_string" in props) return { name: "edit", args: { path: "notes.txt", old_string: "status: draft", new_string: "status: final" } };
  throw new Error(`cell ${cell.id}: no edit tool the task knows how to call among ${offered.map((t) => t.name).join(", ")}`);
}

/** Tool call ids in the vendor's own style (Messages `toolu_…`, the others `call_…`). */
const callId = (cell: MatrixCell, n: number) => (cell.provider.protocol.endsWith("_messages") ? `toolu_matrix_${n}` : `call_matrix_${n}`);

function thought(cell: MatrixCell, n: number, text: string): Pick<TurnSpec, "reasoning"> {
  return cell.reasons ? { reasoning: { text, signature: `sig_matrix_${n}`, encrypted: `enc_matrix_${n}`, id: `rs_matrix_${n}` } } : {};
}

const usage = { input: 900, output: 40 };

/** The model's side of the cell's conversation, one TurnSpec per request, given the tools the first request offers. */
export function script(cell: MatrixCell, offered: OfferedTool[]): TurnSpec[] {
  const call = (n: number, name: string, args: Record<string, unknown>) => ({ id: callId(cell, n), name, arguments: JSON.stringify(args) });
  if (cell.task === "image") {
    return [
      { ...thought(cell, 1, "I will look at the image."), tool_calls: [call(1, "read", { path: "pixel.png" })], usage },
      { ...thought(cell, 2, "The image is a single red pixel."), text: IMAGE_ANSWER, usage },
    ];
  }
  const edit = editCall(cell, offered);
  return [
    { ...thought(cell, 1, "First read the file."), tool_calls: [call(1, "read", { path: "notes.txt" })], usage },
    { ...thought(cell, 2, "The status line says draft; change it."), tool_calls: [call(2, edit.name, edit.args)], usage },
    { ...thought(cell, 3, "Show the file to confirm."), tool_calls: [call(3, "shell", { command: SHELL_COMMAND })], usage },
    { ...thought(cell, 4, "The file says final now."), text: TOOL_ANSWER, usage },
  ];
}
