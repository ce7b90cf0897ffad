// The daemon's HTTP surface, every route and method it serves, without its token under many Host values and
// path spellings (raw TCP, nothing normalized on the way): always 401 before anything else, and nothing in
// the session store changes. With the token, a Host that is not loopback is refused (DNS rebinding).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { connect } from "node:net";
import { buildDaemonApp } from "../../src/daemon/app.ts";
import { startHarness, TOKEN, type Harness } from "./harness.ts";

let h: Harness;
let port: number;
beforeAll(async () => {
  h = await startHarness();
  port = Number(new URL(h.url).port);
});
afterAll(() => h.stop());

function raw(method: string, target: string, host: string | null, extra = ""): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    const finish = () => {
      socket.destroy();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0));
    };
    const timer = setTimeout(finish, 1500);
    socket.on("data", (chunk: Buffer) => (data += chunk.toString("latin1")));
    socket.on("close", () => {
      clearTimeout(timer);
      finish();
    });
    socket.on("error", () => {});
    const body = method === "GET" ? "" : "{}";
    socket.write(`${method} ${target} HTTP/1.1\r\n${host === null ? "" : `Host: ${host}\r\n`}${extra}${body ? `Content-Type: application/json\r\nContent-Length: 2\r\n` : ""}Connection: close\r\n\r\n${body}`);
  });
}

function storeDigest(): string {
  const sqlite = h.running.daemon.store.sqlite;
  const hash = createHash("sha256");
  for (const { name } of sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]) {
    hash.update(name).update(JSON.stringify(sqlite.query(`SELECT * FROM "${name}"`).all()));
  }
  return hash.digest("hex");
}

const HOSTS = [null, "", "x", "ab", "abc", "abcd", "abcdefghij", "[::1]", "[::2]", "localhost", "127.0.0.1:1", "evil.example", "a/b", "a?b", "a@b"];

describe("daemon: no request reaches a handler without the token", () => {
  test("every route and method, every Host and path spelling: 401 (or refused by Bun), store unchanged", async () => {
    const app = buildDaemonApp(h.running.daemon, { logger: { error: () => {} }, secrets: [] });
    const routes = app.routes.map((r) => [r.method, r.path.replace(/:(\w+)/g, "x1")] as const);
    expect(routes.length).toBeGreaterThan(10);
    const before = storeDigest();
    const wrong: string[] = [];
    for (const [method, path] of routes) {
      const targets = [path, `/ab${path}`, `/${path}`, `/x/..${path}`, `/x/%2e%2e${path}`, `http://x${path}`, `${path}?x=/../`];
      for (const host of HOSTS) {
        for (const target of targets) {
          for (const extra of ["", "Authorization: Bearer wrong\r\n", `Authorization: Basic ${TOKEN}\r\n`, `Authorization: Bearer ${TOKEN}x\r\n`]) {
            const status = await raw(method === "ALL" ? "GET" : method, target, host, extra);
            if (status !== 401 && status !== 400 && status !== 0) wrong.push(`${method} ${target} Host=${JSON.stringify(host)} ${extra.trim()} -> ${status}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(storeDigest()).toBe(before);
  }, 120_000);

  test("with the token, any Host but a loopback name is 403", async () => {
    for (const host of ["x", "ab", "evil.example", "127.0.0.2", "[::2]", "localhost.evil", "a@localhost"]) {
      expect([host, await raw("GET", "/health", host, `Authorization: Bearer ${TOKEN}\r\n`)]).toEqual([host, 403]);
    }
    for (const host of ["localhost", "127.0.0.1", `127.0.0.1:${port}`, "[::1]"]) expect([host, await raw("GET", "/health", host, `Authorization: Bearer ${TOKEN}\r\n`)]).toEqual([host, 200]);
  });
});
