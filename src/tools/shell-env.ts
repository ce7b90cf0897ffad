// The environment a session's shell starts with. The engine may supply its own (the permissions layer
// filters `secret_words` there); without one, the daemon's environment minus variables that look like
// credentials, so a model cannot read API keys with `env`.

/** A fixed map, or a function asked each time a shell (re)starts so later filtering rules apply. */
export type ShellEnvSource = Record<string, string | undefined> | (() => Record<string, string | undefined>);

/** Name parts that mark a credential: `OPENAI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY`. */
const SECRET_PARTS = new Set(["KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "CREDENTIAL", "CREDENTIALS", "COOKIE", "PAT"]);
/** Variables the shell needs even though a part of their name looks secret (the ssh-agent socket). */
const KEEP = new Set(["SSH_AUTH_SOCK"]);

export function looksLikeSecretVariable(name: string): boolean {
  if (KEEP.has(name)) return false;
  return name
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .some((part) => SECRET_PARTS.has(part));
}

/** The daemon's environment without credential-looking variables. */
export function defaultShellEnv(source: Record<string, string | undefined> = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && !looksLikeSecretVariable(name)) env[name] = value;
  }
  return env;
}

/**
 * The environment for a new shell: the supplied one (or the default), with pagers turned off because
 * nobody can press `q` (commands get no terminal and no stdin).
 */
export function shellEnvironment(source: ShellEnvSource | undefined): Record<string, string> {
  const base = source === undefined ? defaultShellEnv() : typeof source === "function" ? source() : source;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  return { ...env, PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" };
}
