// Client credentials and cross-app access (issue 23 item 6): the flows themselves are proven by the
// conformance suite (auth/client-credentials-*, auth/cross-app-access-complete-flow). Here: the config
// rules a user meets, and that a refused secret never reaches the reason the user and the log see.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMcpManager, type McpManager, type McpServerConfig } from "../../src/mcp/index.ts";
import { configEnv, problemLines } from "../helpers/config-env.ts";
import { waitFor } from "./helpers.ts";

let open: McpManager[] = [];
let servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  for (const s of servers) s.stop(true);
  open = [];
  servers = [];
});

describe("config", () => {
  test("each client authenticates one way, and secret files are absolute", () => {
    const c = configEnv();
    c.globalFile(
      [
        "mcp_servers:",
        "  both: { transport: http, url: https://a.example/mcp, auth: { type: client-credentials, client_id: c, client_secret: s, private_key_file: /k.pem } }",
        "  none: { transport: http, url: https://b.example/mcp, auth: { type: client-credentials, client_id: c } }",
        "  rel: { transport: http, url: https://c.example/mcp, auth: { type: client-credentials, client_id: c, client_secret_file: secrets/s } }",
        "  xaa: { transport: http, url: https://d.example/mcp, auth: { type: cross-app-access, client_id: c, client_secret: s, idp: { token_endpoint: https://idp.example/token, client_id: i } } }",
        "",
      ].join("\n"),
    );
    const lines = problemLines(c.load(), "error");
    expect(lines).toContain("mcp_servers.both.auth: sets client_secret and private_key_file; only one may be set");
    expect(lines.some((l) => l.startsWith("mcp_servers.none.auth: needs a client secret (client_secret_basic) or a private key (private_key_jwt)"))).toBe(true);
    expect(lines).toContain("mcp_servers.rel.auth.client_secret_file: 'secrets/s' is relative; secret files are named by an absolute path or ~/...");
    expect(lines.some((l) => l.startsWith("mcp_servers.xaa.auth.idp: needs the user's ID token from the identity provider"))).toBe(true);
  });
});

describe("a refused client", () => {
  test("the server fails with the authorization server's reason, and the secret from the file is never in it", async () => {
    const secret = "s3cr3t-value-from-a-file-9f8e7d";
    // An authorization server that echoes what it was sent, the worst case for a leak.
    const as = Bun.serve({
      port: 0,
      fetch: async (req) => {
        const url = new URL(req.url);
        if (url.pathname.startsWith("/.well-known/oauth-authorization-server")) {
          return Response.json({ issuer: url.origin, authorization_endpoint: `${url.origin}/authorize`, token_endpoint: `${url.origin}/token`, grant_types_supported: ["client_credentials"], token_endpoint_auth_methods_supported: ["client_secret_basic"], response_types_supported: ["code"] });
        }
        if (url.pathname === "/token") {
          const basic = atob((req.headers.get("authorization") ?? "").replace(/^Basic /, ""));
          return Response.json({ error: "invalid_client", error_description: `unknown client ${basic}` }, { status: 401 });
        }
        return new Response("not found", { status: 404 });
      },
    });
    const mcp: ReturnType<typeof Bun.serve> = Bun.serve({
      port: 0,
      fetch: (req): Response => {
        const url = new URL(req.url);
        if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
          return Response.json({ resource: `http://localhost:${mcp.port}/mcp`, authorization_servers: [`http://localhost:${as.port}`] });
        }
        return new Response("unauthorized", { status: 401, headers: { "WWW-Authenticate": `Bearer resource_metadata="http://localhost:${mcp.port}/.well-known/oauth-protected-resource/mcp"` } });
      },
    });
    servers.push(as, mcp);
    const dir = mkdtempSync(join(tmpdir(), "mcp-machine-"));
    writeFileSync(join(dir, "secret"), `${secret}\n`, { mode: 0o600 });
    const logged: string[] = [];
    const config = { transport: "http", url: `http://localhost:${mcp.port}/mcp`, auth: { type: "client-credentials", client_id: "ci", client_secret_file: join(dir, "secret") } } as McpServerConfig;
    const m = createMcpManager({ servers: { m2m: config }, dataRoot: dir, clock: { now: () => Date.now() }, log: (e) => logged.push(e.message), cwd: dir });
    open.push(m);
    await m.start();
    await waitFor("the server to fail", () => m.servers()[0]!.state === "failed");
    const reason = m.servers()[0]!.reason!;
    expect(reason).toContain("unknown client ci:");
    expect(reason).not.toContain(secret);
    expect(logged.join("\n")).not.toContain(secret);
  }, 30_000);
});
