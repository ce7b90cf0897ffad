// Markdown files with optional YAML frontmatter (skills, facet files, subagent files).

export interface FrontmatterDoc {
  data: Record<string, unknown>;
  body: string;
  /** Set when the frontmatter is not a YAML mapping; the caller names the file. */
  error?: string;
}

export function parseFrontmatter(text: string): FrontmatterDoc {
  const m = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!m) return { data: {}, body: text.trim() };
  const body = text.slice(m[0].length).trim();
  try {
    const data = Bun.YAML.parse(m[1]!);
    if (data === null || data === undefined) return { data: {}, body };
    if (typeof data !== "object" || Array.isArray(data)) return { data: {}, body, error: "the frontmatter must be a YAML mapping" };
    return { data: data as Record<string, unknown>, body };
  } catch (error) {
    return { data: {}, body, error: `the frontmatter is not valid YAML: ${(error as Error).message}` };
  }
}
