// How deeply a JSON text nests, found by one pass over its bytes before any parser sees it: a body nested
// thousands of levels deep costs a recursive parser or validator its stack (a 500) or seconds of work.

/** The nesting depth a request body may have; legitimate bodies of the daemon and the gateway stay far below. */
export const MAX_JSON_DEPTH = 64;

/** Whether the JSON text in `bytes` opens more than `max` arrays or objects inside one another (strings are skipped). */
export function jsonNestsDeeper(bytes: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next byte is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Whether a Content-Type names JSON (`application/json`, `application/*+json`). */
export function isJsonType(contentType: string | null): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}
