// The second guard on span content: every string attribute and status message is cut to a bounded
// length and passed through the same redaction helper as logs (configured secrets, the export headers'
// values, token shapes). It runs in the export worker (export-worker.ts), on each batch before the
// official serializer sees it: on the turn's thread it cost about as much as recording the span (a unique
// id such as a tool call's misses every cache). Nothing leaves the process unscrubbed.
import { redactText } from "../util/redact.ts";

/** Attribute strings are names and ids; anything longer is cut (a guard, not a content channel). */
const MAX_ATTRIBUTE_CHARS = 256;
/** Distinct attribute strings remembered as scrubbed (ids make the set grow; it is then started over). */
const SCRUB_CACHE_ENTRIES = 4096;

/** The values to scrub: configured secrets, each export header's value and, for `Scheme credential` values, the credential alone. */
export function scrubbedValues(secrets: readonly string[], headers: Readonly<Record<string, string>>): string[] {
  const headerSecrets = Object.values(headers).flatMap((v) => [v, v.trim().split(/\s+/).at(-1) ?? v]);
  return [...secrets, ...headerSecrets].filter((s) => s.length >= 4);
}

/** A scrubber over `secrets`; strings repeat (model, tool and route names, statuses), so each distinct one is scrubbed once. */
export function createScrubber(secrets: readonly string[]): (value: string) => string {
  const scrubbed = new Map<string, string>();
  return (value) => {
    let out = scrubbed.get(value);
    if (out === undefined) {
      out = redactText(value.slice(0, MAX_ATTRIBUTE_CHARS), secrets);
      if (scrubbed.size >= SCRUB_CACHE_ENTRIES) scrubbed.clear();
      scrubbed.set(value, out);
    }
    return out;
  };
}
