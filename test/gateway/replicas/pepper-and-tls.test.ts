// What replicas share (issue 38 item 3): the pepper (a file every replica holds; the database records only
// its fingerprint and refuses a host with another) and the TLS identity (the first replica's self-signed
// pair, stored in the database with its key sealed under the pepper, presented by every replica). Real
// gateways on a real PostgreSQL; SQLite records the fingerprint too, so a copied database is checked.
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { randomBytes } from "node:crypto";
import { SQL } from "bun";
import { parseGatewayConfig } from "../../../src/gateway/config/load.ts";
import { displayUrl, openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import { pepperFingerprint, PEPPER_SETTING, PepperError } from "../../../src/gateway/auth/pepper.ts";
import { resolveTls, SELF_SIGNED_CERT, SELF_SIGNED_KEY, TLS_SETTING } from "../../../src/gateway/net/tls.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";
import { addUser, startTestGateway, tempDir } from "../helpers.ts";

const COPY_IT =
  "Every gateway serving one database needs the same pepper file (it keys the stored passwords and daemon credentials, and is never stored in the database): copy that file to this host, mode 0600, and name it in auth.password.pepper_file.";

function pepperFile(dir = tempDir("pepper-")): string {
  const file = join(dir, "pepper");
  writeFileSync(file, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  return file;
}

/** A data dir holding a self-signed pair, so a replica on loopback runs TLS (as one that once listened on 0.0.0.0). */
async function dataDirWithPair(): Promise<string> {
  const dir = tempDir();
  const data = join(dir, "data");
  await resolveTls(parseGatewayConfig("listen: {address: 0.0.0.0}\nauth: {}\n", join(dir, "c.yaml")), data, new Date(), "replica-a");
  return data;
}

function peerFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on("error", reject);
  });
}

async function setting(url: string, key: string): Promise<string | undefined> {
  const sql = new SQL(url);
  try {
    return ((await sql`SELECT value FROM gateway_settings WHERE key = ${key}`) as { value: string }[])[0]?.value;
  } finally {
    await sql.close();
  }
}

const replica = (name: string, pepper: string) => ({ extra: `host_name: ${name}\n`, auth: `    pepper_file: ${pepper}\n` });

describe("replicas on PostgreSQL", () => {
  pgTest("two replicas sharing a pepper file present the first one's certificate; the stored key is sealed", async () => {
    const url = await freshPgDatabase();
    const pepper = pepperFile();
    const aData = await dataDirWithPair();
    const a = await startTestGateway(replica("replica-a", pepper).extra, { auth: replica("replica-a", pepper).auth, database: url, dataDir: aData });
    const b = await startTestGateway(replica("replica-b", pepper).extra, { auth: replica("replica-b", pepper).auth, database: url });
    try {
      expect(a.tls!.source).toBe("shared-stored");
      expect(b.tls!.source).toBe("shared");
      expect(b.tls!.fingerprint).toBe(a.tls!.fingerprint);
      expect(a.url).toStartWith("https://");
      expect(b.url).toStartWith("https://");
      // What a client sees on the wire, from each replica.
      const onWire = (await peerFingerprint(a.server.port!)).toUpperCase();
      expect(onWire).toBe(a.tls!.fingerprint);
      expect((await peerFingerprint(b.server.port!)).toUpperCase()).toBe(onWire);
      // The second replica wrote no pair of its own.
      expect(existsSync(join(b.ctx.dataDir, SELF_SIGNED_KEY))).toBe(false);
      // The database holds the certificate, and the key only sealed.
      const stored = (await setting(url, TLS_SETTING))!;
      const keyPem = await Bun.file(join(aData, SELF_SIGNED_KEY)).text();
      const keyBody = keyPem.split("\n").filter((l) => l && !l.startsWith("-----")).join("");
      expect(stored).toContain(JSON.stringify(await Bun.file(join(aData, SELF_SIGNED_CERT)).text()).slice(1, 40));
      expect(stored).not.toContain("PRIVATE KEY");
      expect(stored).not.toContain(keyBody.slice(0, 24));
      expect(stored).not.toContain(keyBody.slice(-24));
      // One pepper: a password set through one replica signs in on the other.
      await addUser(a, "ada", "correct horse battery");
      const p = (await b.ctx.principals.list()).find((x) => x.username === "ada")!;
      expect(await b.ctx.hasher.verify("correct horse battery", await b.ctx.principals.passwordHash(p.id))).toBe(true);
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 60_000);

  pgTest("a replica with another pepper, or none, is refused with what to copy; the database keeps only a fingerprint", async () => {
    const url = await freshPgDatabase();
    const pepper = pepperFile();
    const a = await startTestGateway(replica("replica-a", pepper).extra, { auth: replica("replica-a", pepper).auth, database: url });
    const where = displayUrl(url);
    try {
      const other = pepperFile();
      const refused = await startTestGateway(replica("replica-b", other).extra, { auth: replica("replica-b", other).auth, database: url }).catch((e: Error) => e);
      expect(refused).toBeInstanceOf(PepperError);
      expect((refused as Error).message).toBe(
        `this host's pepper (${other}) differs from the one the gateway database ${where} was set up with (${pepper} on host replica-a). ${COPY_IT} ` +
          "If that pepper is lost for good, `agent gateway db adopt-pepper` makes the database accept this host's (every stored password and daemon credential then stops working).",
      );
      // A new host with an empty data dir and no pepper_file: refused, and no pepper of its own is made.
      const dir = tempDir();
      const none = await startTestGateway("host_name: replica-c\n", { database: url, dataDir: join(dir, "data") }).catch((e: Error) => e);
      expect((none as Error).message).toBe(`this host has no pepper (${join(dir, "data", "pepper")} does not exist), and the gateway database ${where} was set up with one (${pepper} on host replica-a). ${COPY_IT}`);
      expect(existsSync(join(dir, "data", "pepper"))).toBe(false);
      // Copying the file is the fix.
      const copied = join(tempDir(), "pepper");
      copyFileSync(pepper, copied);
      const c = await startTestGateway("host_name: replica-c\n", { auth: `    pepper_file: ${copied}\n`, database: url });
      await c.stop();
      // The database holds the fingerprint, never the pepper.
      const record = JSON.parse((await setting(url, PEPPER_SETTING))!);
      const secret = (await Bun.file(pepper).text()).trim();
      expect(record).toEqual({ fingerprint: pepperFingerprint(new TextEncoder().encode(secret)), host: "replica-a", file: pepper });
      const sql = new SQL(url);
      const all = JSON.stringify(await sql`SELECT * FROM gateway_settings`);
      await sql.close();
      expect(all).not.toContain(secret);
    } finally {
      await a.stop();
    }
  }, 60_000);

  pgTest("replicas starting together on 0.0.0.0 store one generated identity; configured files always win", async () => {
    const url = await freshPgDatabase();
    const pepper = new TextEncoder().encode(randomBytes(32).toString("base64url"));
    const openers = await Promise.all([openGatewayPg(url), openGatewayPg(url), openGatewayPg(url)]);
    const dir = tempDir();
    const config = parseGatewayConfig("listen: {address: 0.0.0.0}\nauth: {}\n", join(dir, "c.yaml"));
    const all = await Promise.all(openers.map((o, i) => resolveTls(config, join(dir, `data${i}`), new Date(), `host${i}`, { db: o.db, pepper })));
    expect(new Set(all.map((m) => m!.fingerprint)).size).toBe(1);
    expect(all.filter((m) => m!.source === "shared-stored")).toHaveLength(1);
    // The pair lives in the database only.
    for (let i = 0; i < all.length; i++) expect(existsSync(join(dir, `data${i}`, SELF_SIGNED_KEY))).toBe(false);
    // A replica with tls.cert_file / key_file serves its files, whatever the database holds.
    const own = (await resolveTls(config, join(dir, "gen"), new Date(), "elsewhere"))!;
    writeFileSync(join(dir, "c.pem"), own.cert);
    writeFileSync(join(dir, "k.pem"), own.key, { mode: 0o600 });
    const configured = parseGatewayConfig("listen: {address: 0.0.0.0}\ntls: {cert_file: c.pem, key_file: k.pem}\nauth: {}\n", join(dir, "c.yaml"));
    const loaded = (await resolveTls(configured, join(dir, "data9"), new Date(), "host9", { db: openers[0]!.db, pepper }))!;
    expect(loaded.source).toBe("configured");
    expect(loaded.fingerprint).toBe(own.fingerprint);
    // Under another pepper the stored key does not open.
    await expect(resolveTls(config, join(dir, "data8"), new Date(), "host8", { db: openers[0]!.db, pepper: new TextEncoder().encode("x".repeat(43)) })).rejects.toThrow(
      "the TLS identity stored in the gateway database (gateway_settings tls_identity) does not open with this host's pepper; every replica needs the pepper file the database was set up with",
    );
    for (const o of openers) await o.db.close();
  }, 60_000);
});

test("sqlite: a database copied to a data dir with another pepper is refused at start", async () => {
  const dir = tempDir();
  const data = join(dir, "data");
  const first = await startTestGateway("host_name: box-a\n", { dataDir: data, database: undefined });
  await first.stop();
  if (first.ctx.database.engine !== "sqlite") return;
  // Another pepper in the same data dir (as a database copied without its pepper file).
  const original = await Bun.file(join(data, "pepper")).text();
  writeFileSync(join(data, "pepper"), `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  const refused = await startTestGateway("host_name: box-b\n", { dataDir: data }).catch((e: Error) => e);
  expect((refused as Error).message).toStartWith(`this host's pepper (${join(data, "pepper")}) differs from the one the gateway database ${join(data, "gateway.sqlite")} was set up with (${join(data, "pepper")} on host box-a). `);
  writeFileSync(join(data, "pepper"), original, { mode: 0o600 });
  const again = await startTestGateway("host_name: box-a\n", { dataDir: data });
  await again.stop();
});
