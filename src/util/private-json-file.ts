// Small JSON files that hold a person's decisions (extension approvals, project trust): versioned, read
// strictly (a damaged or newer file is an error naming it, never silently treated as empty), written
// atomically with mode 0600 in a directory of mode 0700.
import { chmodSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { writeFileAtomic } from "./atomic-write.ts";

export class PrivateJsonFileError extends Error {}

/**
 * The file's document, or null when it does not exist. `what` names the file's kind in errors
 * ("an approvals file (version 1 with a decisions list)"); `consequence` says what deleting it does.
 */
export function readPrivateJson<S extends TSchema>(file: string, schema: S, currentVersion: number, what: string, consequence: string): Static<S> | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new PrivateJsonFileError(`${file}: cannot be read (${(error as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new PrivateJsonFileError(`${file}: not valid JSON; fix or delete it (${consequence})`);
  }
  const version = (doc as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version > currentVersion) {
    throw new PrivateJsonFileError(`${file} was written by a newer agent (version ${version}); update agent`);
  }
  if (!Value.Check(schema, doc)) throw new PrivateJsonFileError(`${file}: not ${what}; fix or delete it`);
  return doc;
}

export function writePrivateJson(file: string, doc: unknown): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  writeFileAtomic(file, `${JSON.stringify(doc, null, 2)}\n`, 0o600);
}
