// The MCP conformance suite (client mode, every client scenario) against our manager: the suite starts its
// scenario servers and runs test/mcp/fixtures/conformance-client.ts, which drives a manager session. The
// run takes a few seconds; each scenario is one test here, so the CI's "N passed, N failed" counts them.
// The expected list is pinned: a scenario that appears in a new suite version fails until it is listed.
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const CLI = join(root, "node_modules", ".bin", "conformance");
const CLIENT = `${process.execPath} ${join(import.meta.dir, "fixtures", "conformance-client.ts")}`;

/** Every client scenario of @modelcontextprotocol/conformance 0.1.16 that must pass. */
const PASSING = [
  "initialize",
  "tools_call",
  "elicitation-sep1034-client-defaults",
  "sse-retry",
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/client-credentials-jwt",
  "auth/client-credentials-basic",
  "auth/cross-app-access-complete-flow",
];

/** Scenarios that do not apply, with the reason (docs/mcp.md "Conformance"). None today. */
const NOT_APPLICABLE: Record<string, string> = {};

const results = new Map<string, { passed: number; failed: number }>();
let output = "";

beforeAll(async () => {
  const child = Bun.spawn([process.execPath, CLI, "client", "--command", CLIENT, "--suite", "all"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  output = (stdout + stderr).replace(/\x1b\[[0-9;]*m/g, "");
  for (const m of output.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm)) results.set(m[1]!, { passed: Number(m[2]), failed: Number(m[3]) });
}, 180_000);

describe("MCP conformance suite, client mode", () => {
  test("the suite ran every scenario, and each is pinned as passing or not applicable", () => {
    expect(results.size).toBeGreaterThan(0);
    expect([...results.keys()].sort()).toEqual([...PASSING, ...Object.keys(NOT_APPLICABLE)].sort());
  });

  for (const scenario of PASSING) {
    test(`scenario ${scenario} passes`, () => {
      const result = results.get(scenario);
      if (!result || result.failed > 0) throw new Error(`${scenario}: ${JSON.stringify(result)}\n${output.slice(-4000)}`);
      expect(result.passed).toBeGreaterThan(0);
    });
  }
});
