// An extension's manifest: `extension.json` in its directory. TypeBox checks the shape; every problem
// names the file, the field, the value and what is allowed. The name must be the directory's name, so
// `plugins.<name>` and tool names (`ext__<name>__<tool>`) point at one place.
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, extname, isAbsolute, join, relative, sep } from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export const MANIFEST_FILE = "extension.json";

export const EXTENSION_CAPABILITIES = ["tools", "system_reminders"] as const;
export type ExtensionCapability = (typeof EXTENSION_CAPABILITIES)[number];

/** Lowercase letters, digits and single hyphens: safe in tool names and free of the `__` separator. */
export const EXTENSION_NAME_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const VERSION_PATTERN = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$/;
const ENTRY_EXTENSIONS = [".ts", ".js", ".mjs"];

const ManifestSchema = Type.Object(
  {
    name: Type.String({ pattern: EXTENSION_NAME_PATTERN.source, maxLength: 40 }),
    version: Type.String({ pattern: VERSION_PATTERN.source }),
    description: Type.String({ minLength: 1, maxLength: 500 }),
    entry: Type.String({ minLength: 1 }),
    capabilities: Type.Array(Type.Union(EXTENSION_CAPABILITIES.map((c) => Type.Literal(c))), { minItems: 1, uniqueItems: true }),
  },
  { additionalProperties: false },
);

export type Manifest = Static<typeof ManifestSchema>;

/** What each field accepts, in the words of an error message. */
const ALLOWED: Record<string, string> = {
  name: "lowercase letters, digits and single hyphens, starting with a letter (at most 40), equal to the directory name",
  version: "a version such as 1.2.0 (major.minor.patch, optional -prerelease)",
  description: "one to 500 characters",
  entry: `a ${ENTRY_EXTENSIONS.join(", ")} file inside the extension directory, as a relative path`,
  capabilities: `a non-empty list of distinct values from: ${EXTENSION_CAPABILITIES.join(", ")}`,
};

export class ManifestError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = "ManifestError";
  }
}

export interface ReadManifest {
  manifest: Manifest;
  /** The extension directory (real path). */
  dir: string;
  /** The entry module (absolute, real path, inside `dir`). */
  entry: string;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Reads and checks `<dir>/extension.json`; throws a ManifestError naming the file and the field. */
export function readManifest(dir: string): ReadManifest {
  const file = join(dir, MANIFEST_FILE);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ManifestError(file, code === "ENOENT" ? "missing; an extension directory needs an extension.json manifest" : `not valid JSON (${(error as Error).message})`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new ManifestError(file, "must be a JSON object with name, version, description, entry and capabilities");
  const record = doc as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !(k in ALLOWED));
  if (unknown.length > 0) throw new ManifestError(file, `unknown field '${unknown[0]}'; allowed fields: ${Object.keys(ALLOWED).join(", ")}`);
  for (const field of Object.keys(ALLOWED)) {
    if (!(field in record)) throw new ManifestError(file, `field '${field}' is missing; it must be ${ALLOWED[field]}`);
    const errors = [...Value.Errors(ManifestSchema.properties[field as keyof Manifest], record[field])];
    if (errors.length > 0) throw new ManifestError(file, `field '${field}' is ${shown(record[field])}; it must be ${ALLOWED[field]}`);
  }
  const manifest = record as Manifest;
  if (manifest.name !== basename(dir)) throw new ManifestError(file, `field 'name' is ${shown(manifest.name)} but the directory is '${basename(dir)}'; they must be equal`);
  return { manifest, dir: realpathSync(dir), entry: entryPath(file, dir, manifest.entry) };
}

/** The entry as a real path that stays inside the extension directory (no `..`, no symlink out). */
function entryPath(file: string, dir: string, entry: string): string {
  const bad = (why: string) => new ManifestError(file, `field 'entry' is ${shown(entry)}: ${why}; it must be ${ALLOWED.entry}`);
  if (isAbsolute(entry)) throw bad("an absolute path");
  if (!ENTRY_EXTENSIONS.includes(extname(entry))) throw bad("not a module file");
  const full = join(dir, entry);
  if (!existsSync(full) || !statSync(full).isFile()) throw bad("no such file");
  const real = realpathSync(full);
  const root = realpathSync(dir);
  const rel = relative(root, real);
  if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) throw bad("it leads outside the extension directory");
  return real;
}
