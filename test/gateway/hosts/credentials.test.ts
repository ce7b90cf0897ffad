// Host credentials (hst_): `agent gateway host-token create/list/revoke` (printed once, stored as a hash,
// audited, exit codes), accepted on the connect route only: a revoked, unknown or other-family token there is
// the 401 without an upgrade, and a live hst_ token on every other route is answered exactly as a token of
// an unknown family; revoking it from the CLI (another connection to the database) closes the host's connection.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { runCli } from "../../../src/cli/run.ts";
import { renderOpenApi } from "../../../src/gateway/server/app.ts";
import { dial } from "../../../src/gateway/hosts/mux/dial.ts";
import { HOST_CLOSE } from "../../../src/gateway/hosts/connect-route.ts";
import { captureIo } from "../../helpers/io.ts";
import { gatewayStorageYaml, sqlAll, startTestGateway, tempDir, type TestGateway } from "../helpers.ts";
import { machineToken } from "../sessions/helpers.ts";

let gw: TestGateway;
let config: string;

beforeAll(async () => {
  gw = await startTestGateway("host_name: front-a\n");
  config = join(tempDir("hst-cli-"), "gateway-config.yaml");
  writeFileSync(config, `${gatewayStorageYaml(gw)}auth:\n  password: {memory_kib: 8192, time_cost: 1}\n`);
});
afterAll(() => gw.stop());

async function run(...argv: string[]) {
  const io = captureIo();
  const code = await runCli(["gateway", "host-token", ...argv, "--config", config], io);
  return { code, out: io.stdout, err: io.stderr };
}

/** One raw request on its own connection: the status line and headers, and the body's start. */
function raw(head: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve) => {
    const socket = connect(gw.server.port!, "127.0.0.1");
    let data = "";
    const finish = () => {
      socket.destroy();
      const end = data.indexOf("\r\n\r\n");
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0), head: data.slice(0, end), body: data.slice(end + 4) });
    };
    socket.on("data", (chunk: Buffer) => {
      data += chunk.toString("latin1");
      // A refusal is a whole response; a 101 would keep the socket open.
      if (/\r\n\r\n/.test(data) && (/^HTTP\/1\.1 101/.test(data) || /\r\n\r\n[\s\S]*\}$/.test(data))) finish();
    });
    socket.on("close", finish);
    socket.on("error", () => {});
    socket.write(head);
  });
}

function upgradeHead(token: string | null, protocol = "agent-host.1", method = "GET"): string {
  return [
    `${method} /api/v1/hosts/connect HTTP/1.1`,
    `Host: 127.0.0.1:${gw.server.port}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Version: 13",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    `Sec-WebSocket-Protocol: ${protocol}`,
    ...(token ? [`Authorization: Bearer ${token}`] : []),
    "",
    "",
  ].join("\r\n");
}

describe("agent gateway host-token", () => {
  test("create prints the token once on stdout and stores only its hash; list shows no secrets; revoke; exit codes", async () => {
    expect((await run("create")).code).toBe(2);
    const bad = await run("create", "--host", "no spaces");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(`--host "no spaces": expected a host name`);
    expect((await run("create", "--host", "ok", "--label", "a\u0007b")).err).toContain("control characters");

    const created = await run("create", "--host", "build-1", "--label", "ci runner");
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/^hst_[A-Za-z0-9_-]{43}\n$/);
    const token = created.out.trim();
    expect(created.err).toMatch(/^Created host token hcr_\S+ for host build-1\. It is shown only this once/);
    expect(created.err).not.toContain(token);
    const rows = await sqlAll(gw.ctx.db, "SELECT * FROM host_credentials");
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));

    const list = await run("list");
    expect(list.code).toBe(0);
    expect(list.out).toContain("build-1");
    expect(list.out).toContain("ci runner");
    expect(list.out).not.toContain(token);
    const json = JSON.parse((await run("list", "--json")).out);
    expect(json).toEqual([{ id: expect.stringMatching(/^hcr_/), host: "build-1", label: "ci runner", created_at: expect.any(String), last_used_at: null, revoked_at: null }]);

    const revoked = await run("revoke", json[0].id);
    expect(revoked).toMatchObject({ code: 0, out: `Revoked host token ${json[0].id} (host build-1); its connections close.\n` });
    const again = await run("revoke", json[0].id);
    expect(again.code).toBe(1);
    expect(again.err).toContain("already revoked");
    const unknown = await run("revoke", "hcr_nope");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain(`no host credential with id "hcr_nope"`);
    expect(JSON.parse((await run("list", "--json")).out)[0].revoked_at).not.toBeNull();

    const audit = (await sqlAll(gw.ctx.db, "SELECT action, target, detail FROM audit_events WHERE action LIKE 'host_token.%' ORDER BY id")) as { action: string; target: string; detail: string }[];
    expect(audit.map((a) => [a.action, a.target])).toEqual([["host_token.create", json[0].id], ["host_token.revoke", json[0].id]]);
    expect(audit[0]!.detail).toContain("host build-1");
    expect(JSON.stringify(audit)).not.toContain(token);
  });
});

describe("the connect route takes a live host credential and nothing else", () => {
  test("no token, an unknown, a revoked or a PAT: 401 with the identical body and no upgrade", async () => {
    const revoked = await gw.ctx.hostCredentials.create("build-2");
    await gw.ctx.hostCredentials.revoke(revoked.info.id);
    const pat = await machineToken(gw);
    for (const token of [null, "hst_unknownunknownunknownunknownunknown1234567", revoked.token, pat, `xyz_${"a".repeat(43)}`]) {
      const res = await raw(upgradeHead(token));
      expect([token?.slice(0, 4), res.status, res.body]).toEqual([token?.slice(0, 4), 401, '{"error":"unauthorized"}']);
      expect(res.head.toLowerCase()).not.toContain("upgrade: websocket");
    }
    // The host side's dialer reports the refusal.
    await expect(dial(`${gw.url}/api/v1/hosts/connect`, { token: revoked.token, hello: { side: "host", name: "build-2" } })).rejects.toThrow(/401/);
  });

  test("a live host credential without the subprotocol, without an upgrade or with another method is refused; with both it upgrades", async () => {
    const { token } = await gw.ctx.hostCredentials.create("build-3");
    expect((await raw(upgradeHead(token, "chat"))).status).toBe(400);
    const plain = await fetch(`${gw.url}/api/v1/hosts/connect`, { headers: { Authorization: `Bearer ${token}` } });
    expect(plain.status).toBe(426);
    const post = await fetch(`${gw.url}/api/v1/hosts/connect`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    expect(post.status).toBe(405);
    const upgraded = await raw(upgradeHead(token));
    expect(upgraded.status).toBe(101);
    expect(upgraded.head).toMatch(/^sec-websocket-protocol: agent-host\.1$/im);
  });

  test("a live hst_ token on every other route is answered exactly as a token of an unknown family", async () => {
    const { token } = await gw.ctx.hostCredentials.create("build-4");
    const unknown = `zzz_${token.slice(4)}`;
    const doc = (await renderOpenApi(gw.ctx)) as { paths: Record<string, Record<string, unknown>> };
    const routes: [string, string][] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (/^\/api\/v1\/(version|openapi|oauth\/|auth\/)|^\/\.well-known\//.test(path)) continue;
      for (const method of Object.keys(ops)) routes.push([method.toUpperCase(), path.replace(/\{(\w+)\}/g, "x")]);
    }
    for (const method of ["GET", "POST"]) routes.push([method, "/api/v1/sessions/ses_x/proxy/sync"]);
    expect(routes.length).toBeGreaterThan(25);
    const answer = async (method: string, path: string, bearer: string) => {
      const res = await fetch(`${gw.url}${path}`, { method, headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" }, body: method === "GET" ? undefined : "{}" });
      return `${res.status} ${res.headers.get("www-authenticate")} ${await res.text()}`;
    };
    const wrong: string[] = [];
    for (const [method, path] of routes) {
      const [withHst, withUnknown] = [await answer(method, path, token), await answer(method, path, unknown)];
      if (withHst !== withUnknown || !withHst.startsWith("401 ")) wrong.push(`${method} ${path}: ${withHst} vs ${withUnknown}`);
    }
    expect(wrong).toEqual([]);
  });

  test("revoking the credential with the CLI closes the host's open connection", async () => {
    const created = await run("create", "--host", "build-5");
    const token = created.out.trim();
    const host = await dial(`${gw.url}/api/v1/hosts/connect`, { token, hello: { side: "host", name: "build-5" } });
    const id = JSON.parse((await run("list", "--json")).out).find((c: { host: string }) => c.host === "build-5").id;
    expect((await run("revoke", id)).code).toBe(0);
    expect(await host.closed).toEqual({ code: HOST_CLOSE.REVOKED, reason: "the host credential was revoked" });
  });
});
