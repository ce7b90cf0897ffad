// One redaction helper for logs, errors, catalog scrubbing and history capture.

import { findSecrets } from "./secret-rules.ts";

export const REDACTED = "[redacted]";

/**
 * Shorter secrets are not searched for in text: replacing every occurrence of a 1-character key would
 * turn each matching letter of ordinary output into the marker, and a value that short protects nothing
 * by being hidden (docs/security.md, "Secrets in output").
 */
export const MIN_SECRET_LENGTH = 8;

/** Whether a secret value is long enough to be searched for in text (MIN_SECRET_LENGTH). */
export function isRedactable(secret: string): boolean {
  return secret.length >= MIN_SECRET_LENGTH;
}

/** Key names whose values are secrets wherever they appear. */
const SECRET_KEY = /(^|_|-)(key|api_?key|token|secret|password|passwd|pepper|authorization|cookie|credential|client_secret|value)$/i;

/** Whether a map key names a secret (e.g. `key`, `api_key`, `client_secret`, `Authorization`). */
export function isSecretKey(name: string): boolean {
  return SECRET_KEY.test(name);
}

/** Token shapes we issue or commonly see: bearer prefixes and long opaque strings. */
const TOKEN_PATTERNS: RegExp[] = [
  /\b(pat|oat|dsc|rt|cs)_[A-Za-z0-9_-]{16,}\b/g,
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
];

/** Replaces known secret values, our token shapes and what gitleaks' rules find (secret-rules.ts) inside free text. */
export function redactText(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  for (const s of secrets) {
    if (isRedactable(s)) out = out.split(s).join(REDACTED);
  }
  for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, REDACTED);
  const spans = findSecrets(out).sort((a, b) => a.start - b.start);
  if (spans.length === 0) return out;
  let result = "";
  let at = 0;
  for (const span of spans) {
    if (span.end <= at) continue;
    result += out.slice(at, Math.max(at, span.start)) + (span.start >= at ? REDACTED : "");
    at = span.end;
  }
  return result + out.slice(at);
}

/**
 * Deep copy with the values of secret-named keys replaced; header maps are redacted entirely
 * when their names look like auth headers.
 */
export function redactValue(value: unknown, secrets: Iterable<string> = []): unknown {
  const list = [...secrets];
  const walk = (v: unknown, key: string | undefined): unknown => {
    if (key !== undefined && isSecretKey(key) && (typeof v === "string" || typeof v === "number")) return REDACTED;
    if (typeof v === "string") return redactText(v, list);
    if (Array.isArray(v)) return v.map((item) => walk(item, undefined));
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) out[k] = walk(inner, k);
      return out;
    }
    return v;
  };
  return walk(value, undefined);
}
