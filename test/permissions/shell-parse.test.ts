// The shell splitter: every simple command a line would run, with quotes, escapes and nesting honoured;
// anything it cannot read with certainty is a failure (which the gate turns into `ask`).
import { describe, expect, test } from "bun:test";
import { splitShellCommand } from "../../src/permissions/shell-parse.ts";

function parts(command: string): string[][] {
  const r = splitShellCommand(command);
  if (!r.ok) throw new Error(`did not parse: ${r.reason}`);
  return r.commands.map((c) => c.words.map((w) => w.text));
}

describe("splitShellCommand", () => {
  test.each([
    ["git status", [["git", "status"]]],
    ["git status && npm test", [["git", "status"], ["npm", "test"]]],
    ["a || b; c | d |& e & f", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]],
    ["a\nb\n\nc", [["a"], ["b"], ["c"]]],
    ["a &&\n  b", [["a"], ["b"]]],
    ["(cd sub && make) || echo failed", [["cd", "sub"], ["make"], ["echo", "failed"]]],
    ["( ( rm x ) )", [["rm", "x"]]],
    // Substitutions run first, then the command that uses them.
    ['echo "$(rm -rf /tmp/x)"', [["rm", "-rf", "/tmp/x"], ["echo", "$(rm -rf /tmp/x)"]]],
    ["echo `whoami`", [["whoami"], ["echo", "`whoami`"]]],
    ["echo `ls \\`pwd\\``", [["pwd"], ["ls", "`pwd`"], ["echo", "`ls \\`pwd\\``"]]],
    ["echo ${HOME:-$(id -u)}", [["id", "-u"], ["echo", "${HOME:-$(id -u)}"]]],
    ["diff <(sort a) >(tee b)", [["sort", "a"], ["tee", "b"], ["diff", "<(sort a)", ">(tee b)"]]],
    // Quotes and escapes: operators inside them are text.
    ["echo 'a && b; c | d'", [["echo", "a && b; c | d"]]],
    ['echo "a && $(echo b)"', [["echo", "b"], ["echo", "a && $(echo b)"]]],
    ["echo a\\;b \\&\\& c", [["echo", "a;b", "&&", "c"]]],
    ['echo "say \\"hi\\"" \'it\'\\\'\'s\'', [["echo", 'say "hi"', "it's"]]],
    ["echo $'a\\'b;c'", [["echo", "a'b;c"]]],
    ["echo a#b # ; rm -rf /", [["echo", "a#b"]]],
    ["FOO=1 make 2>&1 > /dev/null", [["FOO=1", "make", "2>&", "1", ">", "/dev/null"]]],
    ["if test -f x; then cat x; else echo none; fi", [["test", "-f", "x"], ["cat", "x"], ["echo", "none"]]],
    ["for f in $(ls); do rm $f; done", [["ls"], ["rm", "$f"]]],
    ["while read l; do echo $l; done < in", [["read", "l"], ["echo", "$l"]]],
    ["cat <<'EOF' > out.txt\nrm -rf / && $(danger)\nEOF\ngit add out.txt", [["cat", "<<'EOF'", ">", "out.txt"], ["git", "add", "out.txt"]]],
    ["cat <<-EOF\n\thello\n\tEOF", [["cat", "<<-EOF"]]],
  ])("%j", (command, expected) => {
    expect(parts(command)).toEqual(expected as string[][]);
  });

  test("words built at run time are marked dynamic; quoted words are marked quoted", () => {
    const r = splitShellCommand(`rm $TARGET "lit*" plain`);
    expect(r.ok && r.commands[0]!.words.map((w) => [w.dynamic, w.quoted])).toEqual([[false, false], [true, false], [false, true], [false, false]]);
  });

  test.each([
    ["echo 'unclosed", "single quote"],
    ['echo "unclosed', "double quote"],
    ["echo $(unclosed", "never closed"],
    ["echo `unclosed", "backtick"],
    ["a &&", "no command after"],
    ["&& a", "no command before"],
    ["a | | b", "no command before"],
    ["a )", "unexpected ')'"],
    ["echo $((1 + 2))", "arithmetic"],
    ["case $x in a) rm a;; esac", "not supported"],
    ["f() { rm -rf /; }", "function"],
    ["cat <<EOF\nno end", "never terminated"],
    ["cat <<EOF\n$(rm -rf /)\nEOF", "here-document"],
    ["echo trailing\\", "backslash"],
    ["(".repeat(2) + "a))", "arithmetic"],
  ])("%j cannot be read", (command, reason) => {
    const r = splitShellCommand(command);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(reason);
  });

  test("hostile nesting is refused in bounded depth, never a stack overflow", () => {
    for (const command of ["( ".repeat(5000), 'echo "$('.repeat(5000), "echo ${".repeat(5000), "echo `".repeat(3)]) {
      const r = splitShellCommand(command);
      expect(r.ok).toBe(false);
    }
    expect(splitShellCommand("( ".repeat(5000)).ok || (splitShellCommand("( ".repeat(5000)) as { reason: string }).reason).toContain("nested too deeply");
  });

  test("redirection-only leftovers: input is dropped, a write to a file is kept", () => {
    expect(parts("while read l; do echo $l; done < in")).toEqual([["read", "l"], ["echo", "$l"]]);
    expect(parts("{ a; b; } 2>/dev/null")).toEqual([["a"], ["b"]]);
    expect(parts("{ a; } > out.log")).toEqual([["a"], [">", "out.log"]]);
  });
});
