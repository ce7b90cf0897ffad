// OAuth end to end against the SDK's example OAuth-protected server (`simpleStreamableHttp.js --oauth`):
// discovery, dynamic registration, PKCE, the ephemeral loopback redirect (followed here as a browser
// would), credentials stored 0600 and reused by the next session, re-authorization once the token has
// expired by the session clock. The example's metadata names `localhost`, so this test connects there (loopback).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Subprocess } from "bun";
import type { McpManager, McpServerConfig } from "../../src/mcp/index.ts";
import { freePort, runNamed, SDK_EXAMPLE_SERVER, startHttpServer, testManager, waitFor } from "./helpers.ts";

let open: McpManager[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

let server: Subprocess | undefined;
let mcpPort: number;
let authPort: number;
beforeAll(async () => {
  mcpPort = await freePort();
  authPort = await freePort();
  server = await startHttpServer([Bun.which("node")!, SDK_EXAMPLE_SERVER, "--oauth"], { MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) }, `http://localhost:${authPort}/.well-known/oauth-authorization-server`);
});
afterAll(async () => {
  server?.kill();
  await server?.exited;
});

const dataRoot = mkdtempSync(join(tmpdir(), "mcp-oauth-data-"));
const config = (): Record<string, McpServerConfig> => ({ demo: { transport: "http", url: `http://localhost:${mcpPort}/mcp`, auth: { type: "oauth" } } });
const credentialFile = join(dataRoot, "auth", "mcp", "demo", "credentials.json");

/** Plays the browser: opens the authorization URL and follows its redirect to our loopback listener. */
async function authorizeInBrowser(manager: McpManager): Promise<string> {
  await waitFor("needs_auth", () => manager.servers()[0]!.state === "needs_auth");
  const authorizationUrl = manager.servers()[0]!.authorizationUrl!;
  const consent = await fetch(authorizationUrl, { redirect: "manual" });
  expect(consent.status).toBe(302);
  const callback = consent.headers.get("location")!;
  expect(callback).toStartWith("http://127.0.0.1:");
  const page = await fetch(callback);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("Authorization complete");
  await waitFor("connected", () => manager.servers()[0]!.state === "connected");
  return authorizationUrl;
}

describe("OAuth against the SDK example server", () => {
  test("first session: registers, waits for the user, connects; credentials stored 0600 and never logged", async () => {
    const { manager, logs } = testManager(config(), { dataRoot });
    open.push(manager);
    await manager.start();
    const status = manager.servers()[0]!;
    expect(status.state).toBe("needs_auth");
    const url = new URL(status.authorizationUrl!);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await authorizeInBrowser(manager);
    expect((await runNamed(manager, "mcp__demo__greet", { name: "Ada" })).output).toBe("Hello, Ada!");

    expect(statSync(credentialFile).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(credentialFile)).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(credentialFile, "utf8"));
    expect(stored.server_url).toBe(`http://localhost:${mcpPort}/mcp`);
    expect(stored.tokens.access_token.length).toBeGreaterThan(10);
    expect(stored.client_information.client_id.length).toBeGreaterThan(0);
    expect(JSON.stringify(logs)).not.toContain(stored.tokens.access_token);
  });

  test("the callback listener refuses a callback with the wrong state and needs no token", async () => {
    const { manager } = testManager(config(), { dataRoot: mkdtempSync(join(tmpdir(), "mcp-oauth-other-")) });
    open.push(manager);
    await manager.start();
    const redirect = new URL(manager.servers()[0]!.authorizationUrl!).searchParams.get("redirect_uri")!;
    const forged = await fetch(`${redirect}?code=abc&state=forged`);
    expect(forged.status).toBe(400);
    expect(manager.servers()[0]!.state).toBe("needs_auth");
  });

  test("the next session reuses the stored token without asking", async () => {
    const { manager } = testManager(config(), { dataRoot });
    open.push(manager);
    await manager.start();
    expect(manager.servers()[0]!.state).toBe("connected");
    expect((await runNamed(manager, "mcp__demo__greet", { name: "Bea" })).output).toBe("Hello, Bea!");
  });

  test("an access token expired by the session clock (no refresh token issued) leads to a new authorization", async () => {
    const before = JSON.parse(readFileSync(credentialFile, "utf8"));
    expect(before.tokens.refresh_token).toBeUndefined(); // The example server issues none.
    const later = Date.now() + 2 * 3600_000;
    const { manager } = testManager(config(), { dataRoot, now: () => later });
    open.push(manager);
    await manager.start();
    await authorizeInBrowser(manager);
    expect((await runNamed(manager, "mcp__demo__greet", { name: "Cy" })).output).toBe("Hello, Cy!");
    const after = JSON.parse(readFileSync(credentialFile, "utf8"));
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
    expect(after.tokens.expires_at).toBe(later + 3600_000);
  });

  test("a fixed HTTPS redirect: the user pastes the address the browser landed on", async () => {
    const servers: Record<string, McpServerConfig> = {
      demo: { transport: "http", url: `http://localhost:${mcpPort}/mcp`, auth: { type: "oauth", redirect: { type: "fixed", uri: "https://app.example/oauth/callback" } } },
    };
    const { manager } = testManager(servers, { dataRoot: mkdtempSync(join(tmpdir(), "mcp-oauth-fixed-")) });
    open.push(manager);
    await manager.start();
    const status = manager.servers()[0]!;
    expect(status.state).toBe("needs_auth");
    expect(new URL(status.authorizationUrl!).searchParams.get("redirect_uri")).toBe("https://app.example/oauth/callback");
    const landed = (await fetch(status.authorizationUrl!, { redirect: "manual" })).headers.get("location")!;
    expect(landed).toStartWith("https://app.example/oauth/callback?code=");
    const forged = landed.replace(/state=[^&]+/, "state=other");
    await expect(manager.completeAuthorization("demo", forged)).rejects.toThrow("the pasted address belongs to another authorization");
    expect((await manager.completeAuthorization("demo", landed)).state).toBe("connected");
    expect((await runNamed(manager, "mcp__demo__greet", { name: "Di" })).output).toBe("Hello, Di!");
  });
});
