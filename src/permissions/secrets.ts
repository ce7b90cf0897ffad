// `permissions.secret_words` and `permissions.secret_files`: redaction of tool output and model-visible
// text (one-shot or streaming), the environment filter for child processes, and the secret-file test
// the gate asks on and the search tools drop matches with.
import type { LoadedConfig } from "../config/load.ts";
import { isRedactable } from "../util/redact.ts";
import { PathPattern, pathForms, type PatternBase } from "./paths.ts";
import { SecretScanner, type StreamRedactor } from "./secret-scan.ts";

export type Environment = Record<string, string | undefined>;

export class Secrets {
  private readonly scanner: SecretScanner;
  private readonly words: string[];
  /** Words too short to search for in text (under MIN_SECRET_LENGTH): only matched as whole values. */
  private readonly shortWords: Set<string>;
  private readonly files: PathPattern[];

  /**
   * `words`: the configured secret words plus the secrets the config loader collected (static provider
   * keys, values substituted from secret-named variables and commands): none of them may reach the model.
   */
  constructor(words: Iterable<string>, filePatterns: Iterable<string>, private readonly base: PatternBase) {
    // A short word would turn every occurrence of its letters into the marker and drop nearly every
    // variable, so it is only matched as a whole environment value.
    const all = [...new Set([...words].filter((w) => w.length > 0))];
    this.words = all.filter(isRedactable);
    this.shortWords = new Set(all.filter((w) => !isRedactable(w)));
    this.scanner = new SecretScanner(this.words);
    this.files = [...filePatterns].filter((p) => p.trim() !== "").map((p) => new PathPattern(p.trim(), base));
  }

  static fromConfig(loaded: LoadedConfig, base: PatternBase): Secrets {
    const p = loaded.config.permissions;
    return new Secrets([...(p?.secret_words ?? []), ...loaded.secrets], p?.secret_files ?? [], base);
  }

  /** Replaces every secret word in `text` with the redaction marker. */
  redact(text: string): string {
    return this.scanner.redact(text);
  }

  /** A redactor for one stream of chunks: push(chunk) returns safe text, end() the rest. */
  redactor(): StreamRedactor {
    return this.scanner.stream();
  }

  /**
   * The environment for a child process: every variable whose value contains a secret word is dropped,
   * and so is every variable whose name contains one (a secret used as a name still leaks it); a word
   * shorter than MIN_SECRET_LENGTH drops a variable whose whole value it is.
   */
  filterEnv(env: Environment): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) continue;
      if (this.shortWords.has(value) || this.words.some((w) => value.includes(w) || name.includes(w))) continue;
      out[name] = value;
    }
    return out;
  }

  /** Whether `path` (absolute, or relative to `cwd`) is a secret file, as written or through symlinks. */
  isSecretFile(path: string, cwd: string = this.base.projectRoot): boolean {
    if (this.files.length === 0) return false;
    const { lexical, real } = pathForms(path, cwd, this.base.home);
    return this.files.some((f) => f.matches(lexical) || f.matches(real));
  }

  get hasSecretFiles(): boolean {
    return this.files.length > 0;
  }
}
