// Every route of the gateway, taken from its OpenAPI document (plus the web UI and the session proxy), sent
// without credentials under many Host values and path spellings, over raw TCP so nothing normalizes them on
// the way: each answer is a refusal, no database row changes, and no file or process appears. The attack it
// guards against: `Host: x` with `/ab/api/v1/sessions` once answered 200 with the session list, and a chain
// of such requests ran a configuration's pre-run script on the host.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { renderOpenApi, buildGatewayApp } from "../../src/gateway/server/app.ts";
import { createFetchHandler } from "../../src/gateway/server/edge.ts";
import { hostPolicy } from "../../src/gateway/server/request-target.ts";
import { childrenOf } from "../helpers/processes.ts";
import { machineToken, registerProject, sessionGateway, stopGateway } from "./sessions/helpers.ts";
import { sqlAll, tableNames, type TestGateway } from "./helpers.ts";

let gw: TestGateway & { token: string };
let port: number;
let marker: string;
let project: { projectId: string; path: string; configName: string };

beforeAll(async () => {
  gw = await sessionGateway();
  port = gw.server.port!;
  marker = join(gw.dir, "pre-run-ran");
  // A configuration whose pre-run script leaves a file: a session created without credentials would run it.
  project = await registerProject(gw, { preRun: `#!/bin/sh\ntouch ${marker}\n` });
  await machineToken(gw);
});
afterAll(() => stopGateway(gw));

/** One request over its own connection, bytes exactly as given; the status and the start of the body. */
function raw(head: string, body = ""): Promise<{ status: number; text: string; head: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let data: Buffer = Buffer.alloc(0);
    const finish = () => {
      socket.destroy();
      const text = data.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), head: text.slice(0, end), text: text.slice(end + 4, end + 200) });
    };
    // An SSE route that answered would hold the connection open: a second is plenty for a refusal.
    const timer = setTimeout(finish, 1500);
    socket.on("data", (chunk: Buffer) => (data = Buffer.concat([data, chunk])));
    socket.on("close", () => {
      clearTimeout(timer);
      finish();
    });
    socket.on("error", () => {});
    socket.write(Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(body)]));
  });
}

function request(method: string, target: string, host: string | null): Promise<{ status: number; text: string; head: string }> {
  const body = method === "GET" ? "" : "{}";
  const headers = [host === null ? "" : `Host: ${host}\r\n`, body ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : "", "Connection: close\r\n"].join("");
  return raw(`${method} ${target} HTTP/1.1\r\n${headers}\r\n`, body);
}

/** A digest of every row of every table. */
async function databaseDigest(): Promise<string> {
  const hash = createHash("sha256");
  for (const name of await tableNames(gw.ctx.db)) hash.update(name).update(JSON.stringify(await sqlAll(gw.ctx.db, `SELECT * FROM "${name}"`)));
  return hash.digest("hex");
}

/** Every file under the gateway's directories and the project, with its size. */
function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    // SQLite's own files change size on checkpoints; their content is compared by the digest.
    if (stat.isDirectory()) files(path, out);
    else if (!/\.(db|sqlite)(-wal|-shm)?$/.test(name)) out.push(`${path}:${stat.size}`);
  }
  return out.sort();
}

const HOSTS = (p: number) => [
  null,
  "",
  ...["x", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghij"],
  "[::2]",
  "[fe80::1]:1",
  "[::1]",
  `[::1]:${p}`,
  "localhost",
  `localhost:${p}`,
  "localhost:1",
  `127.0.0.1:${p}`,
  "127.0.0.1:99999",
  "x:1",
  "a/b",
  "a?b",
  "a#b",
  "a@b",
  `127.0.0.1:${p}/api`,
  "localhost?x",
  "\xe9vil",
  "a b",
];

/** Spellings of a path that a lax reader could take for another path. */
function variants(path: string): string[] {
  const [, first, rest] = /^\/([^/]+)(\/.*)?$/.exec(path)!;
  return [
    path,
    `/ab${path}`,
    `/ab/${path.slice(1)}`,
    `/${path}`,
    `/x/..${path}`,
    `/x/%2e%2e${path}`,
    `/${first}/.${rest ?? ""}`,
    `/${first}%2f${(rest ?? "").slice(1)}`,
    `/${first}%2F${(rest ?? "").slice(1)}`,
    `${path}/`,
    `${path}?next=/../x`,
    `http://x${path}`,
    `http://x/ab${path}`,
    `${path}%00`,
  ];
}

function fill(path: string): string {
  return path
    .replace("{name}", project.configName)
    .replace("{id}", path.startsWith("/api/v1/projects") ? project.projectId : "ses_00000000000000000000000000")
    .replace("{artifact_id}", "art_1");
}

/** API routes that need no credentials by design (probes, OAuth endpoints with client authentication, sign-in). */
const PUBLIC = /^\/api\/v1\/(health|version|openapi|oauth\/|auth\/)|^\/\.well-known\//;
const REFUSED = [400, 401, 404, 405, 421];

describe("no request reaches a handler unauthenticated", () => {
  test("the OpenAPI document lists every /api route the app serves (so the matrix below misses none)", async () => {
    const doc = (await renderOpenApi(gw.ctx)) as { paths: Record<string, Record<string, unknown>> };
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`)));
    const served = buildGatewayApp(gw.ctx)
      .routes.filter((r) => r.path.startsWith("/api/") && r.path !== "/api/v1/openapi.json" && !(r.method === "GET" && r.path.startsWith("/api/v1/oauth/")))
      .map((r) => `${r.method} ${r.path}`);
    expect(served.filter((r) => !documented.has(r))).toEqual([]);
  });

  test("every protected API route, the proxy and the web forms, under every Host and path spelling: refused, nothing changed, nothing started", async () => {
    const doc = (await renderOpenApi(gw.ctx)) as { paths: Record<string, Record<string, unknown>> };
    const routes: [string, string][] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (PUBLIC.test(path)) continue;
      for (const method of Object.keys(ops)) routes.push([method.toUpperCase(), fill(path)]);
    }
    const session = "ses_00000000000000000000000000";
    for (const method of ["GET", "POST", "PUT", "DELETE"]) routes.push([method, `/api/v1/sessions/${session}/proxy/sync`], [method, `/api/v1/sessions/${session}/proxy/`]);
    // The hosts' connect route, served at the edge before the app (hosts/connect-route.ts).
    for (const method of ["GET", "POST"]) routes.push([method, "/api/v1/hosts/connect"]);
    expect(routes.length).toBeGreaterThan(25);

    const dbBefore = await databaseDigest();
    const filesBefore = [...files(gw.ctx.dataDir), ...files(project.path)];
    const childrenBefore = childrenOf(process.pid);
    const good = `127.0.0.1:${port}`;
    const seen = new Map<number, number>();
    const wrong: string[] = [];
    for (const [method, path] of routes) {
      const cases: [string, string | null][] = [];
      for (const host of HOSTS(port)) for (const target of [path, `/ab${path}`, `/${path}`]) cases.push([target, host]);
      for (const target of variants(path)) for (const host of [good, "x", "ab"]) cases.push([target, host]);
      for (const [target, host] of cases) {
        const res = await request(method, target, host);
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        // Bun refuses a missing Host and a few malformed heads itself (400, or a closed connection: 0).
        if (![0, ...REFUSED].includes(res.status)) wrong.push(`${method} ${target} Host=${JSON.stringify(host)} -> ${res.status} ${res.text}`);
      }
    }
    if (process.env.MATRIX_DEBUG) console.log(seen);
    expect(wrong).toEqual([]);
    // The refusals are the gateway's own, not only closed connections.
    expect(seen.get(401)).toBeGreaterThan(0);
    expect(seen.get(421)).toBeGreaterThan(0);
    expect(seen.get(400)).toBeGreaterThan(0);
    expect(await databaseDigest()).toBe(dbBefore);
    expect([...files(gw.ctx.dataDir), ...files(project.path)]).toEqual(filesBefore);
    expect(existsSync(marker)).toBe(false);
    expect(childrenOf(process.pid)).toEqual(childrenBefore);
  }, 120_000);

  test("the web UI's cookie routes: forms refused without a session (no state change), pages redirect to sign-in", async () => {
    const dbBefore = await databaseDigest();
    const posts = ["/tokens", "/tokens/pat_x/revoke", "/password", "/sessions/x/revoke", "/grants/x/revoke", "/logout", "/device/approve", "/device/deny"];
    const wrong: string[] = [];
    for (const path of posts) {
      for (const host of [`127.0.0.1:${port}`, "x", "ab", "localhost"]) {
        for (const target of [path, `/ab${path}`, `/${path}`]) {
          const res = await raw(`POST ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 13\r\nConnection: close\r\n\r\n`, "name=x&csrf=y");
          // 303 only to the sign-in page; otherwise a refusal.
          const ok = [400, 401, 403, 404, 405, 421].includes(res.status) || (res.status === 303 && /^location: \/login/im.test(res.head));
          if (!ok) wrong.push(`POST ${target} Host=${host} -> ${res.status} ${res.text}`);
        }
      }
    }
    for (const path of ["/", "/device?user_code=ABCD-EFGH"]) {
      const res = await raw(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
      if (res.status !== 303 || !/^location: \/login/im.test(res.head)) wrong.push(`GET ${path} -> ${res.status}`);
    }
    expect(wrong).toEqual([]);
    expect(await databaseDigest()).toBe(dbBefore);
  }, 60_000);
});

describe("the edge and the router read the same path", () => {
  const permissive = { names: [], permits: () => true };

  test("even with every Host accepted, a path the router would read differently is never dispatched unauthenticated", async () => {
    const handler = createFetchHandler(gw.ctx, buildGatewayApp(gw.ctx), () => permissive, { idleMs: 1000, totalMs: 1000 });
    for (const url of ["http://x/ab/api/v1/sessions", "http://x/ab/api/v1/configurations", "https://x/a/api/v1/projects", "http://x//api/v1/sessions"]) {
      const res = await handler(new Request(url));
      expect([url, res.status]).not.toEqual([url, 200]);
      expect([400, 401, 404]).toContain(res.status);
    }
  });

  test("the app reached without the edge authorizes on the path it dispatched", async () => {
    const app = buildGatewayApp(gw.ctx);
    for (const url of ["http://x/ab/api/v1/sessions", "http://localhost/api/v1/sessions", "http://localhost/api/v1/configurations"]) {
      const res = await app.handle(new Request(url));
      expect([url, res.status]).toEqual([url, 401]);
    }
    // A host too short for the router's reading of the URL: whatever path it reads, it is not answered unauthenticated.
    for (const url of ["http://a/api/v1/configurations", "http://ab/api/v1/sessions", "https://a/ab/api/v1/projects"]) expect([401, 404]).toContain((await app.handle(new Request(url))).status);
    const ok = await app.handle(new Request("http://localhost/api/v1/sessions", { headers: { Authorization: `Bearer ${gw.token}` } }));
    expect(ok.status).toBe(200);
  });

  test("Host names: the gateway's own, with or without the port; anything else is 421 before routing", async () => {
    const policy = hostPolicy({ listenAddress: "127.0.0.1", port: 8443, tls: true, externalUrl: "https://gw.example.com", machineName: "build-host.corp" });
    for (const host of ["127.0.0.1", "127.0.0.1:8443", "localhost", "LOCALHOST:8443", "[::1]:8443", "gw.example.com", "gw.example.com:443", "build-host", "build-host.corp:8443", "localhost."]) expect([host, policy.permits(host)]).toEqual([host, true]);
    for (const host of ["", "x", "127.0.0.2", "127.0.0.1:8444", "gw.example.com:8080", "evil.com", "localhost.evil.com", "a/b", "[::2]", "127.0.0.1:0", "localhost:99999", "gw.example.com@evil"]) expect([host, policy.permits(host)]).toEqual([host, false]);
    const wildcard = hostPolicy({ listenAddress: "0.0.0.0", port: 80, tls: false, machineName: "h", interfaceAddresses: ["10.1.2.3", "fe80::1%eth0"] });
    expect(["10.1.2.3", "10.1.2.3:80", "[fe80::1]", "h"].every((h) => wildcard.permits(h))).toBe(true);
    expect(wildcard.permits("10.1.2.4")).toBe(false);
    const res = await request("GET", "/api/v1/health", "x");
    expect(res.status).toBe(421);
    expect(res.text).toContain("misdirected_request");
  });
});
