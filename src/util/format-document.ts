import { stringify } from "yaml";

/** Serializes a schema document in the format chosen with `--format`. */
export function formatDocument(doc: unknown, format: string | undefined): string {
  switch (format ?? "json-pretty") {
    case "json":
      return `${JSON.stringify(doc)}\n`;
    case "yaml":
      return stringify(doc, { aliasDuplicateObjects: false });
    default:
      return `${JSON.stringify(doc, null, 2)}\n`;
  }
}
