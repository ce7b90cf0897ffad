// Opaque tokens: a forged, foreign-session, other-kind or old-epoch token is told apart, never trusted.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { TokenError, TokenSigner } from "../../src/protocol/tokens.ts";

const key = randomBytes(32);
const signer = new TokenSigner(key, "ses_a", "ep_1");

function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof TokenError) return e.problem;
    throw e;
  }
  return "accepted";
}

describe("TokenSigner", () => {
  test("a token round-trips with its fields (counters as strings)", () => {
    const t = signer.sign("cur", { p: "18446744073709551615" });
    expect(signer.verify("cur", t)).toEqual({ k: "cur", s: "ses_a", e: "ep_1", p: "18446744073709551615" });
  });

  test("changes are detected and classified", () => {
    const t = signer.sign("cur", { p: "5" });
    const [body, mac] = t.split(".");
    const edited = Buffer.from(JSON.stringify({ k: "cur", s: "ses_a", e: "ep_1", p: "6" })).toString("base64url");
    expect(problem(() => signer.verify("cur", `${edited}.${mac}`))).toBe("forged");
    expect(problem(() => signer.verify("cur", `${body}.${mac}x`))).toBe("forged");
    expect(problem(() => signer.verify("cur", "garbage"))).toBe("malformed");
    expect(problem(() => signer.verify("cur", "e30.abc"))).toBe("malformed");
    expect(problem(() => signer.verify("win", t))).toBe("wrong_kind");
    // Another session's token (another key) and an edited session field are forged: the MAC comes first.
    expect(problem(() => new TokenSigner(randomBytes(32), "ses_b", "ep_1").verify("cur", t))).toBe("forged");
    const otherField = Buffer.from(JSON.stringify({ k: "cur", s: "ses_b", e: "ep_1", p: "5" })).toString("base64url");
    expect(problem(() => new TokenSigner(key, "ses_b", "ep_1").verify("cur", `${otherField}.${mac}`))).toBe("forged");
    // Only an authentic token naming another session (a store copied under another id) is wrong_session.
    expect(problem(() => new TokenSigner(key, "ses_b", "ep_1").verify("cur", t))).toBe("wrong_session");
    expect(problem(() => new TokenSigner(key, "ses_a", "ep_2").verify("cur", t))).toBe("wrong_epoch");
  });
});
