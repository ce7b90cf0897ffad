// secret_words and secret_files: redaction (one-shot and streaming, with secrets split across chunks at
// every position), the child-process environment filter, and secret files in the gate.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SecretScanner, Secrets } from "../../src/permissions/index.ts";
import { REDACTED } from "../../src/util/redact.ts";
import { gateFor } from "./helpers.ts";

const base = { projectRoot: "/work/proj", home: "/home/u" };

describe("redaction", () => {
  const SECRET = "sk-live-4f9a2c";
  const scanner = new SecretScanner([SECRET, "hunter2", "tok_ABC"]);

  test("one-shot: every occurrence, overlapping secrets merged, unrelated text untouched", () => {
    expect(scanner.redact(`key=${SECRET} again ${SECRET}.`)).toBe(`key=${REDACTED} again ${REDACTED}.`);
    expect(scanner.redact("no secrets here: hunter1 tok_AB")).toBe("no secrets here: hunter1 tok_AB");
    const overlapping = new SecretScanner(["abcd", "cdef", "bc", "xabcdefx"]);
    expect(overlapping.redact("-abcdef-")).toBe(`-${REDACTED}-`);
    expect(overlapping.redact("xabcdefx")).toBe(REDACTED);
    expect(new SecretScanner([]).redact("text")).toBe("text");
    const special = "p@$$w0rd.*(x)|[y]{2}\\/^";
    expect(new SecretScanner([special]).redact(`a ${special} b p@$$w0rdX`)).toBe(`a ${REDACTED} b p@$$w0rdX`);
  });

  test("a secret split at every position across two chunks never leaks", () => {
    const text = `before ${SECRET} after`;
    for (let cut = 0; cut <= text.length; cut++) {
      const r = scanner.stream();
      const out = [r.push(text.slice(0, cut)), r.push(text.slice(cut)), r.end()];
      expect(out.join("")).toBe(`before ${REDACTED} after`);
      for (const piece of out) expect(piece).not.toContain(SECRET.slice(0, 4));
    }
  });

  test("a secret split at every pair of positions across three chunks never leaks", () => {
    const text = `${SECRET}|x${SECRET}hunter2`;
    const expected = `${REDACTED}|x${REDACTED}${REDACTED}`;
    for (let a = 0; a <= text.length; a++) {
      for (let b = a; b <= text.length; b++) {
        const r = scanner.stream();
        const out = [r.push(text.slice(0, a)), r.push(text.slice(a, b)), r.push(text.slice(b)), r.end()];
        expect(out.join("")).toBe(expected);
        // No emitted piece ever shows a run of a secret long enough to matter.
        for (const piece of out) expect(piece.replaceAll(REDACTED, "")).not.toMatch(/sk-l|unter/);
      }
    }
  });

  test("streaming output equals one-shot output for random texts and splits", () => {
    const words = ["abc", "cde", "bc", "abcdx", "d"];
    const s = new SecretScanner(words);
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let trial = 0; trial < 2000; trial++) {
      const text = Array.from({ length: rand(16) }, () => "abcdex"[rand(6)]).join("");
      const r = s.stream();
      let out = "";
      let at = 0;
      while (at < text.length) {
        const n = 1 + rand(4);
        out += r.push(text.slice(at, at + n));
        at += n;
      }
      expect(out + r.end()).toBe(s.redact(text));
    }
  });

  test("text is released as soon as it cannot be part of a secret", () => {
    const r = scanner.stream();
    expect(r.push("plain output\n")).toBe("plain output\n");
    expect(r.push("value: sk-li")).toBe("value: ");
    expect(r.push("ve-4f9a2c done")).toBe(`sk-live-4f9a2c done`.replace(SECRET, REDACTED));
    expect(r.push("hunt")).toBe("");
    expect(r.end()).toBe("hunt");
  });
});

describe("child-process environment", () => {
  test("a real child sees neither a secret value nor a variable whose name holds a secret word", async () => {
    const secrets = new Secrets(["s3cr3t-value", "PRIVATE_NAME"], [], base);
    const env = secrets.filterEnv({ ...process.env, API_TOKEN: "s3cr3t-value", WRAPPED: "pre-s3cr3t-value-post", PRIVATE_NAME_X: "plain", KEEP_ME: "visible" });
    const child = Bun.spawn(["/usr/bin/env"], { env, stdout: "pipe" });
    const out = await new Response(child.stdout).text();
    await child.exited;
    expect(out).toContain("KEEP_ME=visible");
    expect(out).toContain("PATH=");
    expect(out).not.toContain("s3cr3t-value");
    expect(out).not.toContain("PRIVATE_NAME");
    expect(out).not.toContain("API_TOKEN=");
  });

  test("a secret word under 8 characters leaves tool output and other variables alone (issue 32 item 6)", () => {
    // A one-letter key used to turn every 'e' of the output into the marker and drop nearly every variable.
    const secrets = new Secrets(["e", "hunter2", "long-enough-secret"], [], base);
    expect(secrets.redact("the key is long-enough-secret; hunter2 here")).toBe(`the key is ${REDACTED}; hunter2 here`);
    const r = secrets.redactor();
    expect(r.push("every letter e stays ") + r.push("long-enough-") + r.push("secret") + r.end()).toBe(`every letter e stays ${REDACTED}`);
    expect(secrets.filterEnv({ HOME: "/home/e", EXACT: "hunter2", ONE: "e", WRAPPED: "x-long-enough-secret" })).toEqual({ HOME: "/home/e" });
  });

  test("the config's own secrets (static provider keys) are filtered and redacted too", async () => {
    const t = await gateFor({
      config: "permissions:\n  secret_words: [word-one]\nproviders:\n  p:\n    kind: { type: custom_b_compatible }\n    url: http://127.0.0.1:9/v1\n    auth: { type: static_key, key: sk-provider-key-123 }\n",
    });
    expect(t.gate.secrets.redact("a word-one b sk-provider-key-123")).toBe(`a ${REDACTED} b ${REDACTED}`);
    expect(t.gate.secrets.filterEnv({ K: "sk-provider-key-123", OK: "1" })).toEqual({ OK: "1" });
  });
});

describe("secret files", () => {
  const secrets = new Secrets([], [".env", "*.pem", "config/credentials/**", "~/.aws/credentials"], base);
  test.each([
    ["/work/proj/.env", true],
    ["/work/proj/sub/dir/.env", true],
    ["/elsewhere/.env", true],
    ["/work/proj/.env.example", false],
    ["/work/proj/certs/server.pem", true],
    ["/work/proj/config/credentials/prod.json", true],
    ["/work/proj/config/credentials", true],
    ["/work/proj/other/config/credentials/prod.json", false],
    ["/home/u/.aws/credentials", true],
    ["/home/u/.aws/config", false],
  ])("isSecretFile(%s) = %p", (path, expected) => {
    expect(secrets.isSecretFile(path)).toBe(expected);
  });

  test("relative paths resolve against the given cwd", () => {
    expect(secrets.isSecretFile("credentials/x", "/work/proj/config")).toBe(true);
    expect(secrets.isSecretFile("x", "/work/proj")).toBe(false);
  });

  test("the gate asks before reading one, even when a wildcard rule allows reading; an exact rule lets it through", async () => {
    const t = await gateFor({ config: "permissions:\n  secret_files: [.env]\n", projectRules: "allow: [read, grep, shell(cat:*)]\n" });
    expect(await t.check("read", { path: ".env" })).toEqual({ kind: "ask", reason: "`./.env` is a secret file (permissions.secret_files)", suggestedRule: "read(./.env)" });
    expect((await t.check("grep", { pattern: "KEY", path: ".env" })).kind).toBe("ask");
    expect((await t.check("glob", { pattern: "*" })).kind).toBe("allow");
    expect(await t.check("shell", { command: "cat .env" })).toMatchObject({ kind: "ask", reason: "`cat .env` touches the secret file `.env`" });
    expect((await t.check("read", { path: "README.md" })).kind).toBe("allow");
    await t.gate.allowAlways(t.req("read", { path: ".env" }), "session");
    expect((await t.check("read", { path: join(t.env.project, ".env") })).kind).toBe("allow");
  });
});
