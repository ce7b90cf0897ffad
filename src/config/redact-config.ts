// What `config show` may print: secret-named values (keys, tokens, auth headers), secret words, and any
// value that came from a secret environment variable or a command are replaced.
import { REDACTED, redactValue } from "../util/redact.ts";

export function redactConfig<T>(config: T, secrets: readonly string[]): T {
  const copy = redactValue(config, secrets) as Record<string, unknown>;
  const permissions = copy.permissions as { secret_words?: unknown[] } | undefined;
  if (permissions?.secret_words) permissions.secret_words = permissions.secret_words.map(() => REDACTED);
  return copy as T;
}
