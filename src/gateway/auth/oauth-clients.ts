// OAuth client registrations (the admin side): public device-flow clients and confidential
// client-credentials clients whose secret is shown once and stored only as SHA-256.
// A confidential client registered over HTTP with a principal's token acts on that principal's authority:
// registration records a grant of the principal to the client (the registration grant, listed and revocable
// on the dashboard), the client's tokens are issued under it, and once it is revoked (by the principal, or by
// a password change: spec rule 10) the client gets no more tokens. Clients registered with the admin CLI
// have no registration grant: they answer to whoever holds the gateway's database. A confidential client
// that has neither (registered over HTTP by a gateway older than registration grants, whose registrant
// migration 0003 could not find) gets no tokens: decision 47 of docs/decisions-gateway.md.
import { and, eq, isNull } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import type { oauthClients } from "../db/schema.ts";
import { first } from "../db/handle.ts";
import { newId, newSecret, sha256Hex } from "../../util/ids.ts";
import { ALL_SCOPES } from "./bearer.ts";

export const GRANT_TYPES = {
  device_code: "urn:ietf:params:oauth:grant-type:device_code",
  refresh_token: "refresh_token",
  client_credentials: "client_credentials",
} as const;

export type ClientType = "public" | "confidential";
export type TokenEndpointAuthMethod = "none" | "client_secret_basic" | "client_secret_post";

export interface OAuthClientInfo {
  id: string;
  name: string;
  clientType: ClientType;
  grantTypes: string[];
  scopes: string[];
  principalId: string | null;
  createdAt: number;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
}

export class OAuthClientError extends Error {
  constructor(message: string, readonly kind: "invalid" | "not_found") {
    super(message);
    this.name = "OAuthClientError";
  }
}

/** Maps short names (`device_code`) or RFC values to the RFC values, checking they fit the client type. */
export function normalizeGrantTypes(type: ClientType, requested: string[] | undefined): string[] {
  const defaults = type === "public" ? [GRANT_TYPES.device_code, GRANT_TYPES.refresh_token] : [GRANT_TYPES.client_credentials];
  if (!requested || requested.length === 0) return defaults;
  const out = requested.map((g) => {
    const value = (GRANT_TYPES as Record<string, string>)[g] ?? (Object.values(GRANT_TYPES) as string[]).find((v) => v === g);
    if (!value) throw new OAuthClientError(`unknown grant type ${JSON.stringify(g)}; allowed: ${Object.keys(GRANT_TYPES).join(", ")}`, "invalid");
    return value;
  });
  if (type === "public" && out.includes(GRANT_TYPES.client_credentials)) throw new OAuthClientError("client_credentials needs a confidential client (--client-type confidential)", "invalid");
  if (type === "confidential" && out.includes(GRANT_TYPES.device_code)) throw new OAuthClientError("confidential clients use client_credentials; register a public client for the device flow", "invalid");
  return [...new Set(out)];
}

/**
 * The registration grant of a confidential client: none (registered with the admin CLI), live, revoked, or
 * unattributed (no grant, and not registered with the admin CLI: whose authority it acts on is not known).
 */
export type RegistrationGrant = { state: "none" } | { state: "live"; grantId: string } | { state: "revoked" } | { state: "unattributed" };

/**
 * Whether a confidential client still acts on its registrant's authority (see the file comment): its
 * registration grant, from the client's row joined with its grants (`via`: how it was registered; `id`,
 * `revokedAt`: one grant per row, null for a client without grants).
 */
export function registrationState(rows: { via: string | null; id: string | null; revokedAt: number | null }[]): RegistrationGrant {
  const grants = rows.filter((r) => r.id !== null);
  if (grants.length === 0) return rows[0]?.via === "admin_cli" ? { state: "none" } : { state: "unattributed" };
  const live = grants.find((r) => r.revokedAt === null);
  return live ? { state: "live", grantId: live.id! } : { state: "revoked" };
}

/** How a client is registered: with the admin CLI, or over HTTP (a confidential one with its registrant's principal). */
export type RegisteredVia = { via: "admin_cli" } | { via: "http"; principalId?: string };

export class OAuthClientStore {
  constructor(private readonly db: GatewayDb, private readonly clock: Clock) {}

  async register(
    name: string,
    type: ClientType,
    grantTypes?: string[],
    scopes: string[] = [...ALL_SCOPES],
    authMethod: TokenEndpointAuthMethod = type === "public" ? "none" : "client_secret_basic",
    /** The admin CLI, or HTTP with the principal whose token registered a confidential client. */
    by: RegisteredVia = { via: "admin_cli" },
  ): Promise<{ client: OAuthClientInfo; secret?: string }> {
    const registeredBy = by.via === "http" ? by.principalId : undefined;
    // Over HTTP a confidential client always acts on someone's authority (its registration grant).
    if (type === "confidential" && by.via === "http" && !registeredBy) throw new OAuthClientError("a confidential client registered over HTTP needs the principal whose token registered it", "invalid");
    if (name.trim() === "" || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) throw new OAuthClientError("a client name needs 1-100 printable characters", "invalid");
    const unknown = scopes.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
    if (unknown.length) throw new OAuthClientError(`unknown scope ${JSON.stringify(unknown[0])}; allowed: ${ALL_SCOPES.join(", ")}`, "invalid");
    const grants = normalizeGrantTypes(type, grantTypes);
    const now = this.clock.now();
    const id = newId("cli", now);
    const secret = type === "confidential" ? newSecret("cs") : undefined;
    return this.db.tx(async (tx) => {
      const { principals, oauthClients, oauthGrants } = tx.t;
      let principalId: string | null = null;
      if (type === "confidential") {
        // Machine callers act as a machine_client principal holding the registered scopes.
        principalId = newId("prn", now);
        await tx.insert(principals).values({ id: principalId, username: `client_${id.slice(4).toLowerCase()}`, displayName: name, kind: "machine_client", createdAt: now, updatedAt: now });
      }
      const client: OAuthClientInfo = { id, name, clientType: type, grantTypes: grants, scopes: [...new Set(scopes)], principalId, createdAt: now, tokenEndpointAuthMethod: authMethod };
      await tx.insert(oauthClients).values({ ...client, secretHash: secret ? sha256Hex(secret) : null, registeredVia: by.via });
      if (type === "confidential" && registeredBy) {
        await tx.insert(oauthGrants).values({ id: newId("grt", now), clientId: id, principalId: registeredBy, scopes: client.scopes, createdAt: now });
      }
      return { client, secret };
    });
  }

  async list(): Promise<OAuthClientInfo[]> {
    const { oauthClients } = this.db.t;
    return (await this.db.select().from(oauthClients).orderBy(oauthClients.createdAt, oauthClients.id)).map(toInfo);
  }

  async get(id: string): Promise<OAuthClientInfo | undefined> {
    const { oauthClients } = this.db.t;
    const row = await first(this.db.select().from(oauthClients).where(eq(oauthClients.id, id)));
    return row ? toInfo(row) : undefined;
  }

  /** Revokes every access and refresh token of the client, then deletes it (and its machine principal). */
  async delete(id: string): Promise<{ client: OAuthClientInfo; revokedTokens: number }> {
    const client = await this.get(id);
    if (!client) throw new OAuthClientError(`no OAuth client with id ${JSON.stringify(id)}`, "not_found");
    const now = this.clock.now();
    return this.db.tx(async (tx) => {
      const { oauthAccessTokens, oauthGrants, oauthRefreshTokens, oauthClients, principals } = tx.t;
      const access = (await tx.update(oauthAccessTokens).set({ revokedAt: now }).where(and(eq(oauthAccessTokens.clientId, id), isNull(oauthAccessTokens.revokedAt))).returning({ id: oauthAccessTokens.id })).length;
      const grantIds = (await tx.select({ id: oauthGrants.id }).from(oauthGrants).where(eq(oauthGrants.clientId, id))).map((g) => g.id);
      let refresh = 0;
      for (const grantId of grantIds) {
        refresh += (await tx.update(oauthRefreshTokens).set({ revokedAt: now }).where(and(eq(oauthRefreshTokens.grantId, grantId), isNull(oauthRefreshTokens.revokedAt))).returning({ id: oauthRefreshTokens.id })).length;
      }
      await tx.delete(oauthClients).where(eq(oauthClients.id, id));
      if (client.principalId) await tx.delete(principals).where(eq(principals.id, client.principalId));
      return { client, revokedTokens: access + refresh };
    });
  }
}

function toInfo(r: typeof oauthClients.$inferSelect): OAuthClientInfo {
  return {
    id: r.id,
    name: r.name,
    clientType: r.clientType,
    grantTypes: r.grantTypes,
    scopes: r.scopes,
    principalId: r.principalId,
    createdAt: r.createdAt,
    tokenEndpointAuthMethod: r.tokenEndpointAuthMethod ?? (r.clientType === "public" ? "none" : "client_secret_basic"),
  };
}
