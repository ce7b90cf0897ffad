// `glob`: file names from the catalog that match a pattern.
import { Type } from "@sinclair/typebox";
import { truncationNote } from "./file-catalog.ts";
import { globMatcher, inScope, outsideLinksNote, searchScope } from "./search-scope.ts";
import { defineTool, toolError } from "./tool.ts";
import description from "./glob.txt" with { type: "text" };

export const GLOB_MAX_RESULTS = 1000;

export const GlobInput = Type.Object(
  {
    pattern: Type.String({ minLength: 1, description: "Glob pattern, e.g. `**/*.ts` or `*.{json,yaml}`." }),
    path: Type.Optional(Type.String({ description: "Directory to search in (default: the working directory)." })),
  },
  { additionalProperties: false },
);

export const globTool = defineTool({
  name: "glob",
  description,
  inputSchema: GlobInput,
  async run(input, ctx, signal) {
    const scope = searchScope(ctx, input.path);
    if (!scope.ok) return toolError(scope.message);
    const snapshot = ctx.fileCatalog.snapshot(signal);
    const match = globMatcher(input.pattern);
    const found = inScope(snapshot, scope).filter((f) => match(f.local)).map((f) => f.path);
    const lines = found.slice(0, GLOB_MAX_RESULTS);
    if (found.length > GLOB_MAX_RESULTS) {
      lines.push(`[showing the first ${GLOB_MAX_RESULTS} of ${found.length} matches; use a narrower pattern or path]`);
    }
    const links = outsideLinksNote(snapshot, scope, match);
    if (links) lines.push(links);
    const note = truncationNote(snapshot);
    if (note) lines.push(note);
    if (found.length === 0) {
      lines.unshift(`No files match \`${input.pattern}\`${scope.prefix ? ` under \`${scope.prefix}\`` : ""} (files ignored by .gitignore are not listed).`);
    }
    return { output: lines.join("\n"), metadata: { matches: found.length } };
  },
});
