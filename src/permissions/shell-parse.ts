// Splits a shell command line into the simple commands it would run, so each can be checked against
// the rules on its own: `a && b`, `a || b`, `a; b`, `a | b`, `a & b`, newlines, subshells `( )`,
// command substitutions `$( )` and backticks, process substitutions `<( )` / `>( )`. A real tokenizer
// (quotes, escapes, here-documents), never a regex split: anything it cannot read with certainty is a
// parse failure, which the gate turns into `ask`.

export interface ShellWord {
  /** The word as the shell sees it after quote removal (expansions left as written). */
  text: string;
  /** The value is decided at run time: it contains `$var`, `${...}`, `$(...)` or backticks. */
  dynamic: boolean;
  /** Some part of the word was quoted or escaped (so `*` or `~` in it is literal). */
  quoted: boolean;
}

export interface SimpleCommand {
  words: ShellWord[];
}

export type ShellSplit = { ok: true; commands: SimpleCommand[] } | { ok: false; reason: string };

/** Words dropped at the start of a command: they shape control flow but run nothing themselves. */
const LEADING_KEYWORDS = new Set(["if", "then", "elif", "else", "do", "while", "until", "!", "{", "time"]);
/** Words that close a construct; on their own they run nothing. */
const CLOSING_KEYWORDS = new Set(["fi", "done", "}"]);
/** Constructs whose syntax this tokenizer does not model; commands using them are asked about. */
const UNSUPPORTED_KEYWORDS = new Set(["case", "esac", "function", "select", "coproc", "[[", "]]", "((", "))"]);

const MAX_DEPTH = 16;

class ParseError extends Error {}

interface Heredoc {
  delimiter: string;
  stripTabs: boolean;
  expands: boolean;
}

class Parser {
  private i = 0;
  private pendingHeredocs: Heredoc[] = [];
  /** Open `${` levels: each nests a call, so deep nesting is refused before the stack runs out. */
  private braces = 0;

  constructor(
    private readonly s: string,
    private readonly out: SimpleCommand[],
    private readonly depth: number,
  ) {
    if (depth > MAX_DEPTH) throw new ParseError("commands are nested too deeply");
  }

  parseAll(): void {
    this.sequence(null);
    if (this.i < this.s.length) throw new ParseError(`unexpected '${this.s[this.i]}' at offset ${this.i}`);
  }

  /** Reads commands until `close` (left unconsumed) or the end of input. */
  private sequence(close: ")" | null): void {
    // The last `&&`, `||`, `|` or `|&` seen with no command after it yet: `a &&` is incomplete.
    let operator: string | null = null;
    let expectCommand = true;
    for (;;) {
      this.skipBlanks();
      if (this.i >= this.s.length || this.s[this.i] === ")") {
        if (operator) throw new ParseError(`'${operator}' with no command after it`);
      }
      if (this.i >= this.s.length) {
        if (close) throw new ParseError("a '(' is never closed");
        if (this.pendingHeredocs.length) throw new ParseError("a here-document is never terminated");
        return;
      }
      const c = this.s[this.i]!;
      if (c === ")") {
        if (!close) throw new ParseError("unexpected ')'");
        return;
      }
      if (c === "#") {
        while (this.i < this.s.length && this.s[this.i] !== "\n") this.i++;
        continue;
      }
      if (c === "\n") {
        this.i++;
        this.readHeredocBodies();
        // A newline after `&&` or `|` continues the same list.
        if (!operator) expectCommand = true;
        continue;
      }
      if (c === ";" || c === "&" || c === "|") {
        const two = this.s.slice(this.i, this.i + 2);
        if (two === ";;" || two === ";&") throw new ParseError("'case' clauses are not supported");
        const op = two === "&&" || two === "||" || two === "|&" ? two : c;
        if (expectCommand || operator) throw new ParseError(`'${op}' with no command before it`);
        this.i += op.length;
        operator = op === ";" || op === "&" ? null : op;
        expectCommand = true;
        continue;
      }
      if (c === "(") {
        if (this.s[this.i + 1] === "(") throw new ParseError("arithmetic commands '((...))' are not supported");
        this.nested();
        operator = null;
        expectCommand = false;
        continue;
      }
      this.simpleCommand();
      operator = null;
      expectCommand = false;
    }
  }

  private skipBlanks(): void {
    for (;;) {
      const c = this.s[this.i];
      if (c === " " || c === "\t" || c === "\r") this.i++;
      else if (c === "\\" && this.s[this.i + 1] === "\n") this.i += 2;
      else return;
    }
  }

  private atWordEnd(): boolean {
    const c = this.s[this.i];
    return c === undefined || " \t\r\n;&|()".includes(c) || ((c === "<" || c === ">") && this.s[this.i + 1] !== "(");
  }

  private simpleCommand(): void {
    const words: ShellWord[] = [];
    // Words that are neither a redirection nor its target, and whether any redirection writes.
    let plainWords = 0;
    let writes = false;
    let targetNext = false;
    for (;;) {
      this.skipBlanks();
      if (this.i >= this.s.length) break;
      const c = this.s[this.i]!;
      if ("\n;&|)".includes(c) && !(c === "&" && this.s[this.i + 1] === ">")) break;
      if (c === "(") throw new ParseError(words.length ? "unexpected '(' inside a command (function definitions are not supported)" : "unexpected '('");
      // `#` at the start of a word begins a comment, left for the sequence to skip.
      if (c === "#") break;
      const redirect = this.redirection();
      if (redirect) {
        words.push({ text: redirect, dynamic: false, quoted: false });
        targetNext = !redirect.includes("<<");
        continue;
      }
      const word = this.word();
      if (targetNext) {
        targetNext = false;
        if (word.text !== "/dev/null" && words.at(-1)!.text.includes(">") && !/^[0-9-]+$/.test(word.text)) writes = true;
        words.push(word);
        continue;
      }
      if (words.length === 0 && !word.quoted && !word.dynamic) {
        if (UNSUPPORTED_KEYWORDS.has(word.text)) throw new ParseError(`'${word.text}' is not supported`);
        if (LEADING_KEYWORDS.has(word.text) || CLOSING_KEYWORDS.has(word.text)) continue;
      }
      plainWords++;
      words.push(word);
    }
    // `for x in a b` runs nothing itself; substitutions inside its words were already collected.
    const first = words[0];
    if (first && !first.quoted && first.text === "for") return;
    // Redirections alone (`done < in`, `} 2>/dev/null`) run nothing, but writing a file is still an effect.
    if (plainWords === 0 && !writes) return;
    if (words.length > 0) this.out.push({ words });
  }

  /** A redirection operator (with an optional fd number) as one word, or null. */
  private redirection(): string | null {
    const rest = this.s.slice(this.i, this.i + 8);
    const m = /^(\d*)(<<<|<<-|<<|<>|<&|>>|>&|>\||&>>|&>|<|>)/.exec(rest);
    if (!m) return null;
    if (m[1] && !/^\d+[<>]/.test(rest)) return null;
    // `<(` and `>(` are process substitutions, read as words.
    if ((m[2] === "<" || m[2] === ">") && this.s[this.i + m[0].length] === "(") return null;
    this.i += m[0].length;
    if (m[2] === "<<" || m[2] === "<<-") {
      this.skipBlanks();
      const delim = this.word();
      if (delim.dynamic) throw new ParseError("a here-document delimiter must be a plain word");
      this.pendingHeredocs.push({ delimiter: delim.text, stripTabs: m[2] === "<<-", expands: !delim.quoted });
      return `${m[0]}${delim.quoted ? `'${delim.text}'` : delim.text}`;
    }
    return m[0];
  }

  private readHeredocBodies(): void {
    for (const doc of this.pendingHeredocs) {
      for (;;) {
        if (this.i >= this.s.length) throw new ParseError(`the here-document '${doc.delimiter}' is never terminated`);
        let end = this.s.indexOf("\n", this.i);
        if (end === -1) end = this.s.length;
        let line = this.s.slice(this.i, end);
        this.i = Math.min(end + 1, this.s.length);
        if (doc.stripTabs) line = line.replace(/^\t+/, "");
        if (line === doc.delimiter) break;
        if (doc.expands && /\$\(|`/.test(line)) throw new ParseError("a here-document that runs commands ($( ) or backticks) is not supported");
      }
    }
    this.pendingHeredocs = [];
  }

  private word(): ShellWord {
    let text = "";
    let dynamic = false;
    let quoted = false;
    while (!this.atWordEnd()) {
      const c = this.s[this.i]!;
      if (c === "\\") {
        const next = this.s[this.i + 1];
        if (next === undefined) throw new ParseError("the command ends with a lone backslash");
        this.i += 2;
        if (next !== "\n") {
          text += next;
          quoted = true;
        }
      } else if (c === "'") {
        const end = this.s.indexOf("'", this.i + 1);
        if (end === -1) throw new ParseError("a single quote is never closed");
        text += this.s.slice(this.i + 1, end);
        this.i = end + 1;
        quoted = true;
      } else if (c === '"') {
        this.i++;
        const part = this.doubleQuoted();
        text += part.text;
        dynamic ||= part.dynamic;
        quoted = true;
      } else if (c === "$") {
        const part = this.dollar(false);
        text += part.text;
        dynamic ||= part.dynamic;
        quoted ||= part.quoted;
      } else if (c === "`") {
        text += this.backticks();
        dynamic = true;
      } else if ((c === "<" || c === ">") && this.s[this.i + 1] === "(") {
        const start = this.i;
        this.i++;
        this.nested();
        text += this.s.slice(start, this.i);
        dynamic = true;
      } else {
        text += c;
        this.i++;
      }
    }
    return { text, dynamic, quoted };
  }

  /** The inside of "...", the opening quote already consumed; consumes the closing quote. */
  private doubleQuoted(): { text: string; dynamic: boolean } {
    let text = "";
    let dynamic = false;
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) throw new ParseError("a double quote is never closed");
      if (c === '"') {
        this.i++;
        return { text, dynamic };
      }
      if (c === "\\") {
        const next = this.s[this.i + 1];
        if (next === undefined) throw new ParseError("a double quote is never closed");
        if ("$`\"\\".includes(next)) text += next;
        else if (next !== "\n") text += c + next;
        this.i += 2;
      } else if (c === "$") {
        const part = this.dollar(true);
        text += part.text;
        dynamic ||= part.dynamic;
      } else if (c === "`") {
        text += this.backticks();
        dynamic = true;
      } else {
        text += c;
        this.i++;
      }
    }
  }

  /** `$...` at the cursor: substitution, parameter, ANSI-C or locale string, or a literal `$`. */
  private dollar(inDoubleQuotes: boolean): { text: string; dynamic: boolean; quoted: boolean } {
    const start = this.i;
    const next = this.s[this.i + 1];
    if (next === "(") {
      if (this.s[this.i + 2] === "(") throw new ParseError("arithmetic expansion '$((...))' is not supported");
      this.i++;
      this.nested();
      return { text: this.s.slice(start, this.i), dynamic: true, quoted: false };
    }
    if (next === "{") {
      this.i += 2;
      this.braceParameter();
      return { text: this.s.slice(start, this.i), dynamic: true, quoted: false };
    }
    if (!inDoubleQuotes && next === "'") return { text: this.ansiC(), dynamic: false, quoted: true };
    if (!inDoubleQuotes && next === '"') {
      this.i += 2;
      const part = this.doubleQuoted();
      return { ...part, quoted: true };
    }
    const m = /^\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(this.s.slice(this.i, this.i + 256));
    if (m) {
      this.i += m[0].length;
      return { text: m[0], dynamic: true, quoted: false };
    }
    this.i++;
    return { text: "$", dynamic: false, quoted: false };
  }

  /** `( ... )` at the cursor: its commands are collected; consumes through the `)`. */
  private nested(): void {
    this.i++;
    this.sequenceAtDepth();
    if (this.s[this.i] !== ")") throw new ParseError("a '(' is never closed");
    this.i++;
  }

  private sequenceAtDepth(): void {
    const inner = new Parser(this.s, this.out, this.depth + 1);
    inner.i = this.i;
    inner.sequence(")");
    this.i = inner.i;
  }

  /** `${...}`, after the `${`: nested quotes and substitutions are honoured; consumes the `}`. */
  private braceParameter(): void {
    if (++this.braces > MAX_DEPTH) throw new ParseError("'${' is nested too deeply");
    let depth = 1;
    while (depth > 0) {
      const c = this.s[this.i];
      if (c === undefined) throw new ParseError("a '${' is never closed");
      if (c === "\\") this.i += 2;
      else if (c === "'") {
        const end = this.s.indexOf("'", this.i + 1);
        if (end === -1) throw new ParseError("a single quote is never closed");
        this.i = end + 1;
      } else if (c === '"') {
        this.i++;
        this.doubleQuoted();
      } else if (c === "$") this.dollar(true);
      else if (c === "`") this.backticks();
      else {
        if (c === "{") depth++;
        else if (c === "}") depth--;
        this.i++;
      }
    }
    this.braces--;
  }

  /** `$'...'` with backslash escapes; returns the value. */
  private ansiC(): string {
    this.i += 2;
    let text = "";
    const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", e: "\x1b", f: "\f", v: "\v" };
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) throw new ParseError("a $'...' string is never closed");
      if (c === "'") {
        this.i++;
        return text;
      }
      if (c === "\\") {
        const next = this.s[this.i + 1];
        if (next === undefined) throw new ParseError("a $'...' string is never closed");
        text += escapes[next] ?? `\\${next}`;
        this.i += 2;
      } else {
        text += c;
        this.i++;
      }
    }
  }

  /** A backtick substitution at the cursor: its (unescaped) body is parsed as commands. */
  private backticks(): string {
    const start = this.i;
    let body = "";
    this.i++;
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) throw new ParseError("a backtick is never closed");
      if (c === "`") {
        this.i++;
        break;
      }
      if (c === "\\" && "$`\\".includes(this.s[this.i + 1] ?? "")) {
        body += this.s[this.i + 1];
        this.i += 2;
      } else {
        body += c;
        this.i++;
      }
    }
    new Parser(body, this.out, this.depth + 1).parseAll();
    return this.s.slice(start, this.i);
  }
}

/** Every simple command `input` would run, in source order, or why it cannot be read with certainty. */
export function splitShellCommand(input: string, depth = 0): ShellSplit {
  const commands: SimpleCommand[] = [];
  try {
    new Parser(input, commands, depth).parseAll();
  } catch (error) {
    if (error instanceof ParseError) return { ok: false, reason: error.message };
    throw error;
  }
  return { ok: true, commands };
}
