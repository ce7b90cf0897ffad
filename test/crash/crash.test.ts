// Crash reports as a user meets them: a process that crashes (uncaught exception or rejection, any role)
// or a command that throws writes a redacted report under the data root and says where on stderr; the
// report is sent only when data.automatic_crash_reporting is on with an endpoint.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CommandSpec, Io } from "../../src/util/cli-command.ts";
import { dispatch } from "../../src/cli/dispatch.ts";
import { rootCommand } from "../../src/cli/commands.ts";
import { CRASH_EXIT } from "../../src/platform/crash/install.ts";
import { describeArgv, type CrashReport } from "../../src/platform/crash/report.ts";
import { VERSION } from "../../src/version.ts";

const HELPER = join(import.meta.dir, "crash-process.ts");
const SECRET = "svc-token-very-secret-9876";

interface Received {
  headers: Record<string, string>;
  body: CrashReport;
}
let server: ReturnType<typeof Bun.serve> | null = null;
afterEach(() => {
  server?.stop(true);
  server = null;
});

function receiver(): { url: string; received: Received[] } {
  const received: Received[] = [];
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (req) => {
    received.push({ headers: Object.fromEntries(req.headers), body: (await req.json()) as CrashReport });
    return new Response(null, { status: 204 });
  } });
  return { url: `http://127.0.0.1:${server.port}/v1/crashes`, received };
}

function sandbox(globalConfig = "") {
  const base = mkdtempSync(join(tmpdir(), "agent-crash-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base, XDG_CONFIG_HOME: join(base, "config"), XDG_DATA_HOME: join(base, "data"), MY_SERVICE_TOKEN: SECRET };
  mkdirSync(join(base, "config", "agent"), { recursive: true });
  writeFileSync(join(base, "config", "agent", "config.yaml"), globalConfig);
  return { base, env, crashDir: join(base, "data", "agent", "crash-reports") };
}

function onlyReport(dir: string): { path: string; report: CrashReport; text: string } {
  const files = readdirSync(dir);
  expect(files).toHaveLength(1);
  const path = join(dir, files[0]!);
  const text = readFileSync(path, "utf8");
  return { path, report: JSON.parse(text) as CrashReport, text };
}

async function crash(box: ReturnType<typeof sandbox>, how: string, argv: string[]) {
  const proc = Bun.spawn(["bun", HELPER, how, ...argv], { env: box.env, cwd: box.base, stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return { code, stderr };
}

describe("crash reports", () => {
  test("only real command names and declared flag names are recorded, never arguments", () => {
    expect(describeArgv(["exec", "fix", "the", "--model", "m", "--secret-plan"], rootCommand)).toEqual({ command: "agent exec", flags: ["--model"] });
    expect(describeArgv(["gateway", "token", "create", "alice", "--label=ci"], rootCommand)).toEqual({ command: "agent gateway token create", flags: ["--label"] });
    expect(describeArgv(["summarize", "my", "diary"], rootCommand)).toEqual({ command: "agent", flags: [] });
  });

  test("an uncaught exception in the daemon writes a redacted report, says where, and exits 70", async () => {
    const box = sandbox();
    const r = await crash(box, "throw", ["daemon", "--session-dir", "/tmp/s/secret-session-path", "--credential-file", "/tmp/c.json"]);
    expect(r.code).toBe(CRASH_EXIT);
    const { path, report, text } = onlyReport(box.crashDir);
    expect(r.stderr).toContain(`agent: a crash report was written to ${path}; nothing was sent (data.automatic_crash_reporting is off)`);
    expect(r.stderr).toContain("agent: crashed: TypeError: cannot read the plan with [redacted]");
    expect(report).toMatchObject({ format: 1, version: VERSION, role: "daemon", command: "agent daemon", flags: ["--session-dir", "--credential-file"], kind: "uncaught_exception" });
    expect(report.error.type).toBe("TypeError");
    expect(report.error.stack.some((l) => l.includes("crash-process.ts"))).toBe(true);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("abcdefgh12345678");
    expect(text).not.toContain("secret-session-path");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(box.crashDir).mode & 0o777).toBe(0o700);
  });

  test("an unhandled rejection in the gateway is a crash report with role gateway", async () => {
    const box = sandbox();
    const r = await crash(box, "reject", ["gateway", "serve"]);
    expect(r.code).toBe(CRASH_EXIT);
    expect(onlyReport(box.crashDir).report).toMatchObject({ role: "gateway", command: "agent gateway serve", kind: "unhandled_rejection", error: { type: "RangeError" } });
  });

  test("a command that throws: internal error with the report's path, no prompt text in the report", async () => {
    const box = sandbox();
    const root: CommandSpec = { name: "agent", summary: "", subcommands: [{ name: "exec", summary: "", positionals: [{ name: "prompt", summary: "" }], flags: [{ name: "model", type: "string", summary: "" }], run: async () => { throw new Error(`exploded near ${SECRET}`); } }] };
    const err: string[] = [];
    const io: Io = { out: () => {}, err: (t) => void err.push(t), isTty: false, cwd: box.base, env: box.env, stdin: async () => "" };
    const code = await dispatch(root, ["exec", "--model", "big-model", "summarize my private diary"], io);
    expect(code).toBe(1);
    const { path, report, text } = onlyReport(box.crashDir);
    expect(err.join("")).toContain("agent: internal error: Error: exploded near [redacted]");
    expect(err.join("")).toContain(path);
    expect(report).toMatchObject({ role: "cli", command: "agent exec", flags: ["--model"], kind: "internal_error" });
    for (const content of ["private diary", "big-model", SECRET]) expect(text).not.toContain(content);
  });

  test("sent to the configured endpoint with its headers only when automatic_crash_reporting is on", async () => {
    const { url, received } = receiver();
    const on = sandbox(`data:\n  automatic_crash_reporting: true\n  crash_report_endpoint: "${url}"\n  crash_report_headers: { x-ingest-key: "k-123" }\n`);
    let r = await crash(on, "throw", ["new"]);
    expect(r.code).toBe(CRASH_EXIT);
    expect(received).toHaveLength(1);
    const local = onlyReport(on.crashDir);
    expect(received[0]!.body).toEqual(local.report);
    expect(received[0]!.headers["x-ingest-key"]).toBe("k-123");
    expect(r.stderr).toContain(`and sent to http://127.0.0.1:${new URL(url).port}`);

    const off = sandbox(`data:\n  automatic_crash_reporting: false\n  crash_report_endpoint: "${url}"\n`);
    r = await crash(off, "throw", ["new"]);
    expect(r.code).toBe(CRASH_EXIT);
    onlyReport(off.crashDir);
    expect(received).toHaveLength(1);
  });

  test("an unreachable endpoint: the report stays local and the user is told sending failed", async () => {
    const { url } = receiver();
    server!.stop(true);
    const box = sandbox(`data: { automatic_crash_reporting: true, crash_report_endpoint: "${url}" }\n`);
    const r = await crash(box, "throw", ["continue"]);
    expect(r.code).toBe(CRASH_EXIT);
    onlyReport(box.crashDir);
    expect(r.stderr).toMatch(/sending it to http:\/\/127\.0\.0\.1:\d+ failed \(not reachable\)/);
  });
});

test("the crash handler never runs the config's $(command) substitutions; literal config secrets are scrubbed", async () => {
  const marker = join(tmpdir(), `agent-crash-subst-${Date.now()}`);
  const box = sandbox(`config_command_substitution: true\nintegrations: { search: { providers: { search_a: { key: "$(touch ${marker})" } } } }\npermissions: { secret_words: ["read the plan"] }\n`);
  const r = await crash(box, "throw", ["exec"]);
  expect(r.code).toBe(CRASH_EXIT);
  expect(existsSync(marker)).toBe(false);
  const { text } = onlyReport(box.crashDir);
  expect(text).not.toContain("read the plan");
  expect(text).toContain("cannot [redacted] with [redacted]");
});
