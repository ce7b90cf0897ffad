// What a failed schema check (an Elysia ValidationError) may say, to the client or in a log: where it
// failed and what was expected, never the value. Elysia's `summary` quotes a mismatched value ("Expected
// property 'text' to be string but found: 42") and its `message` quotes the whole input; a value can be
// a token pasted into the wrong field. TypeBox's per-check `message` ("Expected string") names no value.

interface Issue {
  path?: string;
  summary?: string;
  message?: string;
}

/** At most `max` failed checks of a ValidationError (its `all`), each with its path and a value-free message. */
export function schemaIssues(error: unknown, max = 20): { path: string; message: string }[] {
  const all = ((error as { all?: Issue[] }).all ?? []).slice(0, max);
  return all.map((e) => ({ path: e.path || "/", message: valueFree(e) }));
}

/** The summary when it names a property or a rule, cut before a quoted value; else TypeBox's message. */
function valueFree(e: Issue): string {
  const summary = e.summary?.replace(/ but found: [\s\S]*$/, "");
  return summary ?? e.message ?? "invalid value";
}

/** The failed checks of a ValidationError for a log line: `path: rule` each (TypeBox's message), joined by "; ". */
export function schemaChecks(error: unknown, max = 20): string {
  const all = ((error as { all?: Issue[] }).all ?? []).slice(0, max);
  return all.map((e) => `${e.path || "/"}: ${e.message ?? "invalid value"}`).join("; ");
}
