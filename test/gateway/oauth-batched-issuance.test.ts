// client_credentials issuance is group-committed (src/gateway/oauth/tokens.ts issueAccessBatched): tokens
// asked for in one turn of the event loop are stored together, one multi-row insert up to 500 rows, a
// transaction of several beyond. Every caller gets its own token, stored before its answer, on both dialects.
import { expect, test } from "bun:test";
import { count, eq, inArray } from "drizzle-orm";
import { OAuthClientStore } from "../../src/gateway/auth/oauth-clients.ts";
import type { GatewayConfig } from "../../src/gateway/config/types.ts";
import { openGatewayDb } from "../../src/gateway/db/open.ts";
import { openGatewayPg } from "../../src/gateway/db/open-pg.ts";
import type { GatewayDb } from "../../src/gateway/db/handle.ts";
import { OAuthTokens } from "../../src/gateway/oauth/tokens.ts";
import { sha256Hex } from "../../src/util/ids.ts";
import { systemClock } from "../../src/util/clock.ts";
import { freshPgDatabase, pgTest } from "../helpers/postgres.ts";

const TTL: GatewayConfig["auth"]["oauth"] = { access_token_ttl_secs: 3600, refresh_token_idle_secs: 86_400, refresh_token_absolute_secs: 864_000, device_code_ttl_secs: 600, device_poll_interval_secs: 5 };

async function burst(db: GatewayDb, n: number): Promise<void> {
  const { client } = await new OAuthClientStore(db, systemClock).register(`burst-${n}`, "confidential");
  const tokens = new OAuthTokens(db, systemClock, TTL);
  const issued = await Promise.all(Array.from({ length: n }, () => tokens.issueAccessBatched({ clientId: client.id, principalId: client.principalId!, grantId: null, scopes: ["machine"] })));
  const values = issued.map((r) => r.access_token);
  expect(new Set(values).size).toBe(n);
  const { oauthAccessTokens } = db.t;
  const stored = await db.select({ n: count() }).from(oauthAccessTokens).where(eq(oauthAccessTokens.clientId, client.id));
  expect(Number(stored[0]!.n)).toBe(n);
  // Each answer's token is the one stored for it.
  const sample = values.slice(0, 50).map(sha256Hex);
  const found = await db.select({ h: oauthAccessTokens.tokenHash }).from(oauthAccessTokens).where(inArray(oauthAccessTokens.tokenHash, sample));
  expect(found.map((r) => r.h).sort()).toEqual([...sample].sort());
}

test("sqlite: a burst of 20 and one of 1,200 client_credentials tokens: every caller gets its own, all stored", async () => {
  const { db } = openGatewayDb(":memory:");
  await burst(db, 20);
  await burst(db, 1200);
  await db.close();
});

pgTest("pg: a burst of 20 and one of 1,200 client_credentials tokens: every caller gets its own, all stored", async () => {
  const { db } = await openGatewayPg(await freshPgDatabase());
  await burst(db, 20);
  await burst(db, 1200);
  await db.close();
}, 60_000);
