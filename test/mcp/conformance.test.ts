// The MCP conformance suite (client mode) against our manager: the suite starts its scenario servers and
// runs test/mcp/fixtures/conformance-client.ts, which drives a manager session. Elicitation and the
// client-credentials extensions are not applicable (docs/mcp.md lists why).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const CLI = join(root, "node_modules", ".bin", "conformance");
const CLIENT = `${process.execPath} ${join(import.meta.dir, "fixtures", "conformance-client.ts")}`;

async function conformance(...selection: string[]): Promise<{ exitCode: number; output: string }> {
  const child = Bun.spawn([process.execPath, CLI, "client", "--command", CLIENT, ...selection], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, output: (stdout + stderr).replace(/\x1b\[[0-9;]*m/g, "") };
}

describe("MCP conformance suite, client mode", () => {
  test("the auth suite passes every scenario", async () => {
    const { exitCode, output } = await conformance("--suite", "auth");
    expect(output).toMatch(/Total: \d+ passed, 0 failed, 0 warnings/);
    for (const scenario of ["metadata-default", "basic-cimd", "scope-step-up", "scope-retry-limit", "token-endpoint-auth-basic", "pre-registration"]) {
      expect(output).toMatch(new RegExp(`✓ auth/${scenario}: \\d+ passed, 0 failed`));
    }
    expect(exitCode).toBe(0);
  }, 180_000);

  for (const scenario of [
    "initialize",
    "tools_call",
    "sse-retry",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
  ]) {
    test(`scenario ${scenario} passes`, async () => {
      const { exitCode, output } = await conformance("--scenario", scenario);
      expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
      expect(exitCode).toBe(0);
    }, 60_000);
  }
});
