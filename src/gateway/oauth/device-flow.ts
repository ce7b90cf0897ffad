// The device authorization grant (RFC 8628): issuing device/user code pairs, and redeeming them at the
// token endpoint. Polling faster than the code's interval gets `slow_down` and adds 5 s to the interval,
// stored on the code, for every later poll. A code is bound to its client and consumed exactly once; a
// consumed code presented again has leaked, so the grant it issued is revoked (RFC 6749 §4.1.2, applied
// to device codes). That grant's id is derived from the code, so no lookup table is needed.
// (The /device web page moves codes from pending to approved or denied: docs/decisions-gateway.md 17.)
import { and, eq, lt, sql } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayConfig } from "../config/types.ts";
import type { GatewayDb } from "../db/open.ts";
import { first } from "../db/handle.ts";
import { newId, sha256Hex } from "../../util/ids.ts";
import { newDeviceCode, newUserCode } from "./codes.ts";
import { OAuthError } from "./http.ts";

export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/**
 * The id of the grant a device code issues: the code's creation time (ids sort by time) and a hash of the
 * stored code hash, so a replay of the code finds the grant to revoke. Hex digits are Crockford base32 too.
 */
export function deviceGrantId(deviceCodeHash: string, codeCreatedAt: number): string {
  return `${newId("grt", codeCreatedAt).slice(0, 14)}${sha256Hex(`device-grant:${deviceCodeHash}`).slice(0, 16)}`;
}

/** Expired codes are kept a day (so late polls still get `expired_token`), then deleted. */
const KEEP_EXPIRED_MS = 24 * 3600 * 1000;

export class DeviceFlow {
  constructor(private readonly db: GatewayDb, private readonly clock: Clock, private readonly cfg: GatewayConfig["auth"]["oauth"]) {}

  async authorize(clientId: string, scopes: string[], verificationUri: string): Promise<DeviceAuthorizationResponse> {
    const now = this.clock.now();
    const { oauthDeviceCodes } = this.db.t;
    await this.db.delete(oauthDeviceCodes).where(lt(oauthDeviceCodes.expiresAt, now - KEEP_EXPIRED_MS));
    const deviceCode = newDeviceCode();
    for (let attempt = 0; ; attempt++) {
      const userCode = newUserCode();
      const inserted = await this.db
        .insert(oauthDeviceCodes)
        .values({
          deviceCodeHash: sha256Hex(deviceCode),
          userCode,
          clientId,
          scopes,
          status: "pending",
          intervalSecs: this.cfg.device_poll_interval_secs,
          createdAt: now,
          expiresAt: now + this.cfg.device_code_ttl_secs * 1000,
        })
        .onConflictDoNothing({ target: oauthDeviceCodes.userCode })
        .returning({ userCode: oauthDeviceCodes.userCode });
      if (inserted.length === 1) {
        return {
          device_code: deviceCode,
          user_code: userCode,
          verification_uri: verificationUri,
          verification_uri_complete: `${verificationUri}?user_code=${userCode}`,
          expires_in: this.cfg.device_code_ttl_secs,
          interval: this.cfg.device_poll_interval_secs,
        };
      }
      // A live user code collided (1 in 25.6 billion per live code): draw again.
      if (attempt === 10) throw new OAuthError("server_error", "could not allocate a user code", 503);
    }
  }

  /**
   * One poll of the token endpoint; once approved, `issue` creates the grant (with the approving principal,
   * the approved scopes and the id the grant must have) in the transaction that consumes the code, and its
   * result is returned. A code presented again is refused and `onReplay` is told the grant it issued
   * (whoever presents it: the code has leaked either way), also when the two redemptions raced each other.
   */
  async redeem<T>(
    clientId: string,
    deviceCode: string,
    onReplay: (grantId: string, principalId: string | null) => Promise<void>,
    issue: (tx: GatewayDb, approved: { principalId: string; scopes: string[]; grantId: string }) => Promise<T>,
  ): Promise<T> {
    const now = this.clock.now();
    const hash = sha256Hex(deviceCode);
    const { oauthDeviceCodes } = this.db.t;
    const row = await first(this.db.select().from(oauthDeviceCodes).where(eq(oauthDeviceCodes.deviceCodeHash, hash)));
    const replayed = async () => {
      await onReplay(deviceGrantId(hash, row!.createdAt), row!.principalId);
      return new OAuthError("invalid_grant", "the device code was already used; the tokens issued for it are now revoked");
    };
    if (row?.status === "consumed") throw await replayed();
    if (!row || row.clientId !== clientId) throw new OAuthError("invalid_grant", "the device code is unknown or was issued to another client");
    if (now >= row.expiresAt) throw new OAuthError("expired_token", "the device code has expired; start a new device authorization");
    if (row.status === "denied") throw new OAuthError("access_denied", "the request was denied on the approval page");
    if (row.lastPolledAt !== null && now - row.lastPolledAt < row.intervalSecs * 1000) {
      await this.db
        .update(oauthDeviceCodes)
        .set({ intervalSecs: sql`${oauthDeviceCodes.intervalSecs} + 5`, lastPolledAt: now })
        .where(eq(oauthDeviceCodes.deviceCodeHash, hash));
      throw new OAuthError("slow_down", `polling too fast: wait at least ${row.intervalSecs + 5} seconds between requests from now on`);
    }
    await this.db.update(oauthDeviceCodes).set({ lastPolledAt: now }).where(eq(oauthDeviceCodes.deviceCodeHash, hash));
    if (row.status === "pending") throw new OAuthError("authorization_pending", "waiting for a person to approve the request");
    // Consumed and issued in one transaction: a redemption that finds the code consumed finds its grant
    // too, so the revocation above never misses a grant still being written.
    const issued = await this.db.tx(async (tx) => {
      const consumed = await first(
        tx
          .update(tx.t.oauthDeviceCodes)
          .set({ status: "consumed" })
          .where(and(eq(tx.t.oauthDeviceCodes.deviceCodeHash, hash), eq(tx.t.oauthDeviceCodes.status, "approved")))
          .returning({ principalId: tx.t.oauthDeviceCodes.principalId, scopes: tx.t.oauthDeviceCodes.scopes }),
      );
      if (!consumed?.principalId) return undefined;
      return { value: await issue(tx, { principalId: consumed.principalId, scopes: consumed.scopes, grantId: deviceGrantId(hash, row.createdAt) }) };
    });
    // Another redemption consumed it between our read and our claim: presented twice at once, so leaked.
    if (!issued) throw await replayed();
    return issued.value;
  }
}
