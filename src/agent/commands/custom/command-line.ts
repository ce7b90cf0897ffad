// `/name args...` typed where a prompt is expected (agent exec's prompt): the command and its arguments
// when `name` is one of the session's commands, else null (the text is a prompt, `/usr/bin is slow` too).
export function commandLine(text: string, known: readonly { name: string }[]): { name: string; args: string[] } | null {
  const m = /^\/([A-Za-z0-9][\w:-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return null;
  const name = m[1]!;
  if (!known.some((c) => c.name === name || c.name.toLowerCase() === name.toLowerCase())) return null;
  const args: string[] = [];
  // Double or single quotes keep spaces inside one argument, as the TUI splits them.
  for (const a of (m[2] ?? "").matchAll(/"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g)) args.push(a[1] !== undefined ? a[1].replace(/\\(.)/g, "$1") : (a[2] ?? a[3]!));
  return { name, args };
}
