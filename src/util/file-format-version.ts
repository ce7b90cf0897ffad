// Small JSON files (the daemon credential, gateway token files, auth profiles) carry a format `version`;
// a file without one is version 1 (every such file written before versions existed). A file of a newer
// version is refused, never rewritten in the older format (that would lose what the newer agent stored).

/** A format written by a newer binary than this one: never read or rewritten, only refused. */
export class LayoutTooNewError extends Error {
  /**
   * `subject` names what was refused ("this session", "the gateway database"), `unit` what is counted
   * ("layout", "schema", "version"); `where` says which file or dir.
   */
  constructor(subject: string, unit: string, found: number, supported: number, where: string) {
    super(`${subject} was written by a newer agent (${unit} ${found}); this binary reads up to ${supported}; update agent (${where})`);
    this.name = "LayoutTooNewError";
  }
}

/** The file's format version; throws for a malformed or newer one. `what` names the file in messages. */
export function fileFormatVersion(doc: unknown, supported: number, what: string): number {
  const version = doc && typeof doc === "object" ? (doc as { version?: unknown }).version : undefined;
  if (version === undefined) return 1;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
    throw new Error(`${what}: 'version' must be a positive integer (got ${JSON.stringify(version)})`);
  }
  if (version > supported) throw new LayoutTooNewError(what, "version", version, supported, "the file was left unchanged");
  return version;
}
