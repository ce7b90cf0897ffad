// A local release server for update tests: serves a manifest, its signature and binaries on 127.0.0.1,
// and can cut a download short (the connection closes after half the bytes), hold the manifest until
// released, or sign it wrongly. The tests' signing key is made here; agents under test trust it through
// AGENT_RELEASE_KEYS (read from source runs only) or a binary built with it (test/update/binary.test.ts).
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signatureFile } from "../../src/update/signature.ts";

/** The release key the tests trust, and one nobody trusts. */
export const TEST_KEY = generateKeyPairSync("ed25519");
export const OTHER_KEY = generateKeyPairSync("ed25519");
export const TEST_PUBLIC_PEM = TEST_KEY.publicKey.export({ type: "spki", format: "pem" }) as string;
const keysDir = mkdtempSync(join(tmpdir(), "agent-release-keys-"));
/** A file holding the trusted public key, for AGENT_RELEASE_KEYS. */
export const TEST_KEYS_FILE = join(keysDir, "trusted.pem");
writeFileSync(TEST_KEYS_FILE, TEST_PUBLIC_PEM);
/** The environment that makes a source run trust the test key. */
export const TRUST_TEST_KEY = { AGENT_RELEASE_KEYS: TEST_KEYS_FILE };

/** How the manifest is signed: by the test key (default), not at all, by an untrusted key, or a signature of other bytes. */
export type Signing = "test-key" | "none" | "other-key" | "altered";

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

export function startReleaseServer(releases: ReleaseSpec[], signing: Signing = "test-key"): ReleaseServer {
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
  const manifestBytes = new TextEncoder().encode(JSON.stringify(manifest));
  const signer: KeyObject = signing === "other-key" ? OTHER_KEY.privateKey : TEST_KEY.privateKey;
  // "altered": a valid signature of the manifest as it was before one byte changed (here: a trailing newline).
  const signature = signing === "none" ? null : signatureFile(signing === "altered" ? new TextEncoder().encode(`${JSON.stringify(manifest)}\n`) : manifestBytes, [signer]);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      requests.push(path);
      if (path === "/manifest.json") {
        if (gate) await gate.promise;
        return new Response(manifestBytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": "application/json" } });
      }
      if (path === "/manifest.json.sig" && signature !== null) return new Response(signature);
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
