// The daemon side of the bootstrap: the file is read and deleted (also when invalid), errors never carry
// the token, and the check-in trusts the gateway's TLS certificate only through the pinned fingerprint.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BootstrapError, checkIn, takeBootstrap, type BootstrapFile } from "../../../src/daemon/bootstrap.ts";
import { createTestPki } from "../../fakes/test-ca.ts";
import { registerProject, sessionGateway, stopGateway } from "./helpers.ts";

let gw: Awaited<ReturnType<typeof sessionGateway>>;
let caPem: string;
beforeAll(async () => {
  const pki = await createTestPki();
  caPem = pki.caPem;
  const dir = mkdtempSync(join(tmpdir(), "gw-tls-"));
  writeFileSync(join(dir, "cert.pem"), pki.serverCertPem);
  writeFileSync(join(dir, "key.pem"), pki.serverKeyPem, { mode: 0o600 });
  gw = await sessionGateway(`tls:\n  cert_file: ${join(dir, "cert.pem")}\n  key_file: ${join(dir, "key.pem")}\n`);
});
afterAll(async () => {
  for (const row of await gw.ctx.sessions.store.sessions()) await gw.ctx.sessions.remove(row.id);
  await stopGateway(gw);
});

function writeBootstrap(doc: unknown, mode = 0o600): string {
  const path = join(mkdtempSync(join(tmpdir(), "gw-boot-")), "bootstrap.json");
  writeFileSync(path, typeof doc === "string" ? doc : JSON.stringify(doc), { mode });
  chmodSync(path, mode);
  return path;
}

describe("bootstrap file", () => {
  test("read and deleted; an invalid or readable-by-others file is deleted too and the error never shows the token", () => {
    const token = "dsc_gen_x.secret-secret-secret-secret";
    const good: BootstrapFile = { version: 1, session_id: "ses_x", generation_id: "gen_x", service_token: token, gateway_url: "http://127.0.0.1:1", gateway_tls_fingerprint: null };
    const path = writeBootstrap(good);
    expect(takeBootstrap(path)).toEqual(good);
    expect(existsSync(path)).toBe(false);

    const open = writeBootstrap(good, 0o644);
    expect(() => takeBootstrap(open)).toThrow(`bootstrap file ${open} must have mode 600`);
    expect(existsSync(open)).toBe(false);
    for (const [doc, message] of [
      ["{not json", "is not valid JSON"],
      [{ ...good, service_token: "pat_abc" }, "'service_token' is not a daemon service credential"],
      [{ ...good, gateway_url: 7 }, "has no string field 'gateway_url'"],
    ] as const) {
      const p = writeBootstrap(doc);
      let error: unknown;
      try {
        takeBootstrap(p);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(BootstrapError);
      expect((error as Error).message).toContain(message);
      expect((error as Error).message).not.toContain("secret-secret");
      expect(existsSync(p)).toBe(false);
    }
  });
});

describe("check-in over TLS", () => {
  test("a launched daemon checks in through the pinned certificate: its credential becomes active", async () => {
    expect(gw.url).toStartWith("https://");
    // The test trusts the gateway through its CA; the daemon has only the fingerprint (the CA is unknown to it).
    const created = await fetch(`${gw.url}/api/v1/sessions`, {
      method: "POST",
      tls: { ca: caPem },
      headers: { Authorization: `Bearer ${gw.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ project_id: (await registerProject(gw)).projectId, launch_mode: "project_direct" }),
    } as RequestInit);
    expect(created.status).toBe(201);
    const sessionId = ((await created.json()) as { id: string }).id;
    for (let i = 0; i < 600; i++) {
      const view = await gw.ctx.sessions.store.view((await gw.ctx.sessions.store.session(sessionId))!);
      if (view.state === "failed") throw new Error(`the session failed: ${view.transitions.at(-1)?.detail}`);
      if (view.service_credentials[0]?.state === "active") break;
      await Bun.sleep(50);
    }
    const view = await gw.ctx.sessions.store.view((await gw.ctx.sessions.store.session(sessionId))!);
    expect(view.state).toBe("running");
    expect(view.service_credentials[0]!.state).toBe("active");
  }, 60_000);

  test("a certificate that does not match the pinned fingerprint is refused before the token is sent", async () => {
    const row = (await gw.ctx.sessions.store.sessions())[0]!;
    const issued = await gw.ctx.sessions.store.issueCredential(row.id, []);
    const bootstrap: BootstrapFile = { version: 1, session_id: row.id, generation_id: issued.generationId, service_token: issued.token, gateway_url: gw.url, gateway_tls_fingerprint: "AA:".repeat(31) + "AA" };
    await expect(checkIn(bootstrap)).rejects.toThrow("does not match the fingerprint");
    expect((await gw.ctx.sessions.store.view(row)).service_credentials.at(-1)!.state).toBe("pending");
    // The right pin works.
    await checkIn({ ...bootstrap, gateway_tls_fingerprint: gw.tls!.fingerprint });
    expect((await gw.ctx.sessions.store.view(row)).service_credentials.at(-1)!.state).toBe("active");
  });
});
