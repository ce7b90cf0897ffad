// The machine pepper: 32 random bytes generated once in the data dir (0600), unless
// `auth.password.pepper_file` names another file. It keys password HMACs and service-credential verifiers.
// The pepper itself never goes in the database (its point is to be outside it); the database records a
// fingerprint of the pepper it was set up with, so a host with another pepper (a replica the file was not
// copied to, a database imported from another host) is refused at start instead of failing every sign-in.
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createHmac, randomBytes } from "node:crypto";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import type { GatewayDb } from "../db/handle.ts";
import { getSetting, putSetting, putSettingIfAbsent } from "../db/settings.ts";

export const PEPPER_FILE = "pepper";

/** gateway_settings key of the recorded pepper (PepperRecord as JSON). */
export const PEPPER_SETTING = "pepper_fingerprint";

const FINGERPRINT_LABEL = "agent-gateway pepper fingerprint v1";

export class PepperError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PepperError";
  }
}

/** What the database knows of the pepper it was set up with: never the pepper, only its fingerprint and where it lived. */
export interface PepperRecord {
  /** HMAC-SHA-256(pepper, FINGERPRINT_LABEL), hex. */
  fingerprint: string;
  /** host_name of the gateway that recorded it. */
  host: string;
  /** The pepper file on that host. */
  file: string;
}

/** The file the pepper is read from: `auth.password.pepper_file`, else `<data_dir>/pepper`. */
export function pepperPath(dataDir: string, pepperFile: string | undefined): string {
  return pepperFile ?? join(dataDir, PEPPER_FILE);
}

export function pepperFingerprint(pepper: Uint8Array): string {
  return createHmac("sha256", pepper).update(FINGERPRINT_LABEL).digest("hex");
}

/** Reads the pepper; `create` allows generating the data dir's pepper when it does not exist yet. */
export function loadPepper(dataDir: string, pepperFile: string | undefined, create = true): Uint8Array {
  if (pepperFile) {
    let raw: Buffer;
    try {
      raw = readFileSync(pepperFile);
    } catch (error) {
      throw new PepperError(`cannot read auth.password.pepper_file ${pepperFile}: ${(error as NodeJS.ErrnoException).code ?? "read error"}`);
    }
    const text = raw.toString("utf8").trim();
    if (text.length < 32) throw new PepperError(`auth.password.pepper_file ${pepperFile} is too short: at least 32 characters of random data are required`);
    if ((statSync(pepperFile).mode & 0o077) !== 0) {
      throw new PepperError(`auth.password.pepper_file ${pepperFile} is readable by group or others; run: chmod 600 ${pepperFile}`);
    }
    return new TextEncoder().encode(text);
  }
  const path = join(dataDir, PEPPER_FILE);
  if (!existsSync(path)) {
    if (!create) throw new PepperError(`the machine pepper ${path} does not exist`);
    writeFileAtomic(path, `${randomBytes(32).toString("base64url")}\n`, 0o600);
  } else chmodSync(path, 0o600);
  const text = readFileSync(path, "utf8").trim();
  if (text.length < 32) throw new PepperError(`the machine pepper ${path} is damaged (too short); restore it from a backup — without it no stored password can be verified`);
  return new TextEncoder().encode(text);
}

export interface PepperSite {
  dataDir: string;
  pepperFile: string | undefined;
  /** This host's name among replicas (config host_name). */
  host: string;
  /** The database as messages name it (a SQLite path, or the URL without its password). */
  database: string;
  now: Date;
}

/** The pepper record of the database, or undefined before any gateway recorded one. */
export async function readPepperRecord(db: GatewayDb): Promise<PepperRecord | undefined> {
  const value = await getSetting(db, PEPPER_SETTING);
  return value === undefined ? undefined : parseRecord(value);
}

function parseRecord(value: string): PepperRecord {
  try {
    const record = JSON.parse(value) as PepperRecord;
    if ([record.fingerprint, record.host, record.file].every((field) => typeof field === "string")) return record;
  } catch {}
  throw new PepperError(`the gateway database's ${PEPPER_SETTING} setting is not readable; \`agent gateway db adopt-pepper\` records this host's pepper again`);
}

/**
 * This host's pepper, checked against the database: the first gateway on a database records its pepper's
 * fingerprint (one transaction, first writer wins), every later start compares and refuses another
 * pepper. A host without a pepper of its own does not generate one for a database that has one recorded.
 */
export async function establishPepper(db: GatewayDb, site: PepperSite): Promise<Uint8Array> {
  const file = pepperPath(site.dataDir, site.pepperFile);
  const before = await readPepperRecord(db);
  let pepper: Uint8Array;
  try {
    pepper = loadPepper(site.dataDir, site.pepperFile, before === undefined);
  } catch (error) {
    if (before && error instanceof PepperError && !existsSync(file)) {
      throw new PepperError(`this host has no pepper (${file} does not exist), and the gateway database ${site.database} was set up with one (${before.file} on host ${before.host}). ${COPY_IT}`);
    }
    throw error;
  }
  const mine: PepperRecord = { fingerprint: pepperFingerprint(pepper), host: site.host, file };
  const recorded = before ?? parseRecord(await putSettingIfAbsent(db, PEPPER_SETTING, JSON.stringify(mine), site.now));
  if (recorded.fingerprint !== mine.fingerprint) {
    throw new PepperError(
      `this host's pepper (${file}) differs from the one the gateway database ${site.database} was set up with (${recorded.file} on host ${recorded.host}). ${COPY_IT} ` +
        "If that pepper is lost for good, `agent gateway db adopt-pepper` makes the database accept this host's (every stored password and daemon credential then stops working).",
    );
  }
  return pepper;
}

const COPY_IT =
  "Every gateway serving one database needs the same pepper file (it keys the stored passwords and daemon credentials, and is never stored in the database): copy that file to this host, mode 0600, and name it in auth.password.pepper_file.";

/**
 * Makes the database accept this host's pepper (`agent gateway db adopt-pepper`, for a pepper lost for
 * good): its fingerprint replaces the recorded one. Returns the record it replaced (if readable).
 */
export async function adoptPepper(tx: GatewayDb, pepper: Uint8Array, site: PepperSite): Promise<PepperRecord | undefined> {
  const before = await getSetting(tx, PEPPER_SETTING);
  const mine: PepperRecord = { fingerprint: pepperFingerprint(pepper), host: site.host, file: pepperPath(site.dataDir, site.pepperFile) };
  await putSetting(tx, PEPPER_SETTING, JSON.stringify(mine), site.now);
  try {
    return before === undefined ? undefined : parseRecord(before);
  } catch {
    return undefined;
  }
}
