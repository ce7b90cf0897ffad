// Client authentication at the token, device-authorization and revocation endpoints (RFC 6749 §2.3):
// client_secret_basic (id and secret form-urlencoded before base64, Appendix B) or client_secret_post,
// never both in one request; public clients identify themselves with `client_id` only.
import { and, eq, sql } from "drizzle-orm";
import { registrationState, type RegistrationGrant } from "../auth/oauth-clients.ts";
import type { GatewayDb } from "../db/open.ts";
import { constantTimeEqualHex, sha256Hex } from "../../util/ids.ts";
import { OAuthError } from "./http.ts";

export interface AuthenticatedClient {
  id: string;
  name: string;
  clientType: "public" | "confidential";
  grantTypes: string[];
  scopes: string[];
  /** The machine_client principal of a confidential client. */
  principalId: string | null;
  /** A confidential client's registration grant (read with the client: client_credentials needs it). */
  registration: RegistrationGrant | null;
}

const BASIC_CHALLENGE = { "WWW-Authenticate": 'Basic realm="agent-gateway", charset="UTF-8"' };

function formDecode(part: string): string {
  return decodeURIComponent(part.replace(/\+/g, "%20"));
}

/** `Basic base64(urlencode(id):urlencode(secret))` -> [id, secret]; undefined when malformed. */
function parseBasic(header: string): [string, string] | undefined {
  const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  if (!m) return undefined;
  try {
    const text = Buffer.from(m[1]!, "base64").toString("utf8");
    const colon = text.indexOf(":");
    if (colon < 0) return undefined;
    return [formDecode(text.slice(0, colon)), formDecode(text.slice(colon + 1))];
  } catch {
    return undefined;
  }
}

export class ClientAuthenticator {
  private readonly byId;

  constructor(db: GatewayDb) {
    const { oauthClients, oauthGrants } = db.t;
    // One query per authentication (a round trip on PostgreSQL): the client, and a confidential client's
    // registration grants with it (a public client's grants are its users' sign-ins: not read).
    this.byId = db
      .select({ client: oauthClients, grantId: oauthGrants.id, grantRevokedAt: oauthGrants.revokedAt })
      .from(oauthClients)
      .leftJoin(oauthGrants, and(eq(oauthGrants.clientId, oauthClients.id), eq(oauthClients.clientType, "confidential")))
      .where(eq(oauthClients.id, sql.placeholder("id")))
      .prepare("client_by_id");
  }

  /** Authenticates the caller of an OAuth endpoint from the Authorization header and the form. */
  async authenticate(request: Request, form: Map<string, string>): Promise<AuthenticatedClient> {
    const header = request.headers.get("authorization");
    let id: string | undefined;
    let secret: string | undefined;
    let basic = false;
    if (header !== null) {
      const pair = parseBasic(header);
      if (!pair) throw new OAuthError("invalid_client", "the Authorization header is not valid client_secret_basic", 401, BASIC_CHALLENGE);
      if (form.has("client_secret")) throw new OAuthError("invalid_request", "use one client authentication method: the Authorization header or client_secret in the body, not both");
      if (form.has("client_id") && form.get("client_id") !== pair[0]) throw new OAuthError("invalid_request", "client_id in the body differs from the one in the Authorization header");
      [id, secret] = pair;
      basic = true;
    } else {
      id = form.get("client_id");
      secret = form.get("client_secret");
    }
    const fail = (why: string) => new OAuthError("invalid_client", why, 401, basic ? BASIC_CHALLENGE : {});
    if (!id) throw fail("client authentication failed: no client_id");
    const rows = id.length <= 64 ? await this.byId.execute({ id }) : [];
    const row = rows[0]?.client;
    if (!row) throw fail("client authentication failed");
    if (row.clientType === "public") {
      if (basic || secret !== undefined) throw fail("client authentication failed: public clients send client_id only, without a secret");
    } else {
      if (secret === undefined || row.secretHash === null || !constantTimeEqualHex(row.secretHash, sha256Hex(secret))) throw fail("client authentication failed");
    }
    const registration = row.clientType === "confidential" ? registrationState(rows.map((r) => ({ via: r.client.registeredVia, id: r.grantId, revokedAt: r.grantRevokedAt }))) : null;
    return { id: row.id, name: row.name, clientType: row.clientType, grantTypes: row.grantTypes, scopes: row.scopes, principalId: row.principalId, registration };
  }
}

