// `agent gateway host` on the command line: --help and `agent gateway --help` describe it with an example;
// every bad flag is a usage error (exit 2) naming the flag and what is allowed, and never echoes the token.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { rootCommand } from "../../../src/cli/commands.ts";
import { dispatch } from "../../../src/cli/dispatch.ts";
import { captureIo } from "../../helpers/io.ts";
import { tempDir } from "../helpers.ts";

const TOKEN = `hst_${"A".repeat(43)}`;

async function run(argv: string[], env: Record<string, string | undefined> = {}) {
  const io = captureIo({ env: { HOME: tempDir("host-cli-home-"), ...env } });
  const code = await dispatch(rootCommand, argv, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

test("agent gateway host --help lists its flags, the token's sources (and why not --token) and an example; agent gateway --help lists host with an example", async () => {
  const help = await run(["gateway", "host", "--help"]);
  expect(help.code).toBe(0);
  for (const flag of ["--join URL", "--token-file FILE", "--token TOKEN", "--name NAME", "--data-dir DIR", "--tls-fingerprint"]) expect(help.stdout).toContain(flag);
  expect(help.stdout).toContain("$AGENT_HOST_TOKEN");
  expect(help.stdout).toContain("visible in process lists");
  expect(help.stdout).toContain("agent gateway host --join https://gw-1.example:19870 --join https://gw-2.example:19870 --name build-7");
  const gateway = await run(["gateway", "--help"]);
  expect(gateway.stdout).toMatch(/\n\s+host\s+Join this machine to a gateway as a host/);
  expect(gateway.stdout).toContain("agent gateway host --join https://gw.example:19870");
});

test("bad flags: exit 2 with a message naming the flag and what is allowed; the token is never echoed", async () => {
  const env = { AGENT_HOST_TOKEN: TOKEN };
  const cases: [string[], Record<string, string>, string][] = [
    [["gateway", "host"], env, "--join URL is required"],
    [["gateway", "host", "--join", "http://gw.example:19870"], env, "--join http://gw.example:19870: plaintext http://gw.example:19870 is allowed only to loopback"],
    [["gateway", "host", "--join", "ftp://gw.example"], env, "--join ftp://gw.example: unsupported scheme"],
    [["gateway", "host", "--join", "https://a:1", "--join", "https://a:1"], env, "the same front is named twice"],
    [["gateway", "host", "--join", "https://a:1"], {}, "no host token: set $AGENT_HOST_TOKEN or give --token-file FILE"],
    [["gateway", "host", "--join", "https://a:1"], { AGENT_HOST_TOKEN: "pat_secretvalue1234567890abc" }, "$AGENT_HOST_TOKEN: not a host token"],
    [["gateway", "host", "--join", "https://a:1", "--token-file", "/nonexistent/token"], {}, "--token-file /nonexistent/token: no such file"],
    [["gateway", "host", "--join", "https://a:1", "--token", TOKEN, "--token-file", "/x"], {}, "--token and --token-file: give one of them"],
    [["gateway", "host", "--join", "https://a:1", "--name", "bad name!"], env, '--name "bad name!": expected a host name'],
    [["gateway", "host", "--join", "https://a:1", "--tls-fingerprint", "SHA256:1234"], env, '--tls-fingerprint "SHA256:1234": expected a SHA-256 fingerprint'],
    [["gateway", "host", "--join", "https://a:1", "--bogus"], env, "unknown flag '--bogus'"],
  ];
  for (const [argv, e, message] of cases) {
    const result = await run(argv, e);
    expect({ argv, code: result.code }).toEqual({ argv, code: 2 });
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain("secretvalue");
    expect(result.stderr).not.toContain(TOKEN);
  }
});

test("a token file with a wrong token is refused by its path, not its content", async () => {
  const file = join(tempDir("host-cli-"), "token");
  writeFileSync(file, "not-a-token-but-a-secret\n", { mode: 0o600 });
  const result = await run(["gateway", "host", "--join", "https://a:1", "--token-file", file]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`--token-file ${file}: not a host token`);
  expect(result.stderr).not.toContain("not-a-token-but-a-secret");
});
