// A local release server for update tests: serves a manifest and binaries on 127.0.0.1, and can cut a
// download short (the connection closes after half the bytes) or hold the manifest until released.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A stand-in agent binary: a script that answers --version like the real one. */
export function fakeBinary(version: string): Uint8Array {
  return new TextEncoder().encode(`#!/bin/sh\necho "agent ${version}"\n`);
}

export const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

export interface ReleaseSpec {
  version: string;
  channel: "stable" | "beta";
  /** Served bytes (default: a fake binary of `version`). */
  bytes?: Uint8Array;
  /** Overrides the manifest's checksum (a wrong one). */
  sha256?: string;
  /** Cut the connection after half the bytes. */
  interrupt?: boolean;
  platform?: string;
}

export interface ReleaseServer {
  url: string;
  manifestUrl: string;
  requests: string[];
  /** Holds manifest answers until `release()` (to show that nobody waits on them). */
  hold(): void;
  release(): void;
  stop(): void;
}

export const PLATFORM = `${process.platform}-${process.arch}`;

export function startReleaseServer(releases: ReleaseSpec[]): ReleaseServer {
  const requests: string[] = [];
  let gate: PromiseWithResolvers<void> | null = null;
  const files = new Map<string, Uint8Array>();
  // Interrupted downloads come from a raw socket: full Content-Length, half the body, then the connection closes.
  const cut = new Map<string, Uint8Array>();
  const raw = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, data) {
        const path = data.toString().split(" ")[1] ?? "";
        requests.push(path);
        const bytes = cut.get(path) ?? new Uint8Array();
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`);
        socket.write(bytes.slice(0, bytes.length >> 1));
        socket.end();
      },
    },
  });
  const manifest = {
    format: 1,
    releases: releases.map((r, i) => {
      const bytes = r.bytes ?? fakeBinary(r.version);
      const name = `agent-${r.version}-${i}`;
      if (r.interrupt) cut.set(`/files/${name}`, bytes);
      else files.set(`/files/${name}`, bytes);
      const url = r.interrupt ? `http://127.0.0.1:${raw.port}/files/${name}` : `files/${name}`;
      return { version: r.version, channel: r.channel, assets: { [r.platform ?? PLATFORM]: { url, sha256: r.sha256 ?? sha256(bytes), size: bytes.length } } };
    }),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      requests.push(path);
      if (path === "/manifest.json") {
        if (gate) await gate.promise;
        return Response.json(manifest);
      }
      const bytes = files.get(path);
      if (!bytes) return new Response("not found", { status: 404 });
      return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": "application/octet-stream" } });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    manifestUrl: `${url}/manifest.json`,
    requests,
    hold: () => void (gate = Promise.withResolvers<void>()),
    release: () => gate?.resolve(),
    stop: () => {
      server.stop(true);
      raw.stop(true);
    },
  };
}

/** A temp dir holding an installed stand-in binary of `version`, mode 755. */
export function installedBinary(version: string): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "agent-update-bin-"));
  const path = join(dir, "agent");
  writeFileSync(path, fakeBinary(version));
  chmodSync(path, 0o755);
  return { dir, path };
}
