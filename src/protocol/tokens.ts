// Opaque, authenticated tokens: cursors, operation windows, history checkpoints, page tokens and
// artifact versions. A token is base64url(JSON payload) "." base64url(HMAC-SHA256, 128 bits) under a
// per-session key. Clients never read inside; the server detects a forged, foreign or stale token.
import { createHmac, timingSafeEqual } from "node:crypto";

/** `cur` sync cursor, `win` operation window, `chk` history checkpoint, `pag` history page, `art` artifact version. */
export type TokenKind = "cur" | "win" | "chk" | "pag" | "art";

export interface TokenPayload {
  k: TokenKind;
  /** The session the token belongs to. */
  s: string;
  /** The daemon epoch that issued it. */
  e: string;
  [field: string]: string;
}

export type TokenProblem = "malformed" | "wrong_kind" | "wrong_session" | "forged" | "wrong_epoch";

export class TokenError extends Error {
  constructor(readonly problem: TokenProblem) {
    super(problem);
    this.name = "TokenError";
  }
}

export class TokenSigner {
  constructor(
    private readonly key: Uint8Array,
    readonly session: string,
    readonly epoch: string,
  ) {}

  sign(kind: TokenKind, fields: Record<string, string>): string {
    const body = Buffer.from(JSON.stringify({ k: kind, s: this.session, e: this.epoch, ...fields })).toString("base64url");
    return `${body}.${this.mac(body).toString("base64url")}`;
  }

  /**
   * Verifies a token of `kind` issued by this session in this epoch. The MAC comes first: nothing the
   * token says about itself is believed before it is authentic, so a token of another session (signed
   * with another key) and one with an edited session field are both `forged` (issue 26 §4; they were told
   * apart by the unauthenticated field before). The session and the epoch are compared after it, so only
   * an authentic token of an old epoch (or of a store copied under another id) is reported as such.
   */
  verify(kind: TokenKind, token: string): TokenPayload {
    const dot = token.indexOf(".");
    if (dot <= 0 || token.length > 4096) throw new TokenError("malformed");
    const body = token.slice(0, dot);
    let payload: TokenPayload;
    try {
      payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    } catch {
      throw new TokenError("malformed");
    }
    if (!payload || typeof payload !== "object" || typeof payload.s !== "string" || typeof payload.e !== "string") throw new TokenError("malformed");
    const given = Buffer.from(token.slice(dot + 1), "base64url");
    const want = this.mac(body);
    if (given.length !== want.length || !timingSafeEqual(given, want)) throw new TokenError("forged");
    if (payload.s !== this.session) throw new TokenError("wrong_session");
    if (payload.k !== kind) throw new TokenError("wrong_kind");
    if (payload.e !== this.epoch) throw new TokenError("wrong_epoch");
    for (const value of Object.values(payload)) if (typeof value !== "string") throw new TokenError("malformed");
    return payload;
  }

  private mac(body: string): Buffer {
    return createHmac("sha256", this.key).update(body).digest().subarray(0, 16);
  }
}
