// Token refresh against a token endpoint of the SDK's server auth router (fixtures/refreshing-oauth-server.ts):
// an access token expired by the session clock is refreshed before connecting, without the user.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { McpServerConfig } from "../../src/mcp/index.ts";
import { freePort, runNamed, startHttpServer, testManager, waitFor } from "./helpers.ts";

let server: Subprocess;
let port: number;
beforeAll(async () => {
  port = await freePort();
  server = await startHttpServer([process.execPath, join(import.meta.dir, "fixtures", "refreshing-oauth-server.ts"), String(port)], {}, `http://127.0.0.1:${port}/stats`);
});
afterAll(async () => {
  server.kill();
  await server.exited;
});

const stats = async () => (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as { authorization_code: number; refresh_token: number };

test("an expired access token is refreshed with the stored refresh token; the user is not asked", async () => {
  const dataRoot = mkdtempSync(join(tmpdir(), "mcp-refresh-"));
  const servers: Record<string, McpServerConfig> = { keep: { transport: "http", url: `http://127.0.0.1:${port}/mcp`, auth: { type: "oauth" }, auth_key_name: "keep-creds" } };
  const file = join(dataRoot, "auth", "mcp", "keep-creds", "credentials.json");

  const first = testManager(servers, { dataRoot });
  await first.manager.start();
  expect(first.manager.servers()[0]!.state).toBe("needs_auth");
  const consent = await fetch(first.manager.servers()[0]!.authorizationUrl!, { redirect: "manual" });
  await fetch(consent.headers.get("location")!);
  await waitFor("connected", () => first.manager.servers()[0]!.state === "connected");
  await first.manager.close();
  const before = JSON.parse(readFileSync(file, "utf8"));
  expect(before.tokens.refresh_token).toBeString();
  expect(await stats()).toEqual({ authorization_code: 1, refresh_token: 0 });

  const later = Date.now() + 2 * 3600_000;
  const second = testManager(servers, { dataRoot, now: () => later });
  await second.manager.start();
  expect(second.manager.servers()[0]!.state).toBe("connected");
  expect((await runNamed(second.manager, "mcp__keep__ping", {})).output).toBe("pong");
  await second.manager.close();
  expect(await stats()).toEqual({ authorization_code: 1, refresh_token: 1 });
  const after = JSON.parse(readFileSync(file, "utf8"));
  expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
  expect(after.tokens.refresh_token).not.toBe(before.tokens.refresh_token);
  expect(after.tokens.expires_at).toBe(later + 3600_000);
});
