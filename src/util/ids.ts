// Prefixed, time-sortable ids (`ses_`, `msg_`, `prn_`, `tok_` ...) and high-entropy secrets with their hashes.
import { randomBytes, timingSafeEqual } from "node:crypto";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += CROCKFORD[(value << (5 - bits)) & 31];
  return out;
}

/** `<prefix>_<10 chars of time><16 chars of randomness>`: sorts by creation time. */
export function newId(prefix: string, nowMs: number): string {
  const time = new Uint8Array(6);
  let t = nowMs;
  for (let i = 5; i >= 0; i--) {
    time[i] = t & 0xff;
    t = Math.floor(t / 256);
  }
  return `${prefix}_${base32(time)}${base32(randomBytes(10))}`;
}

/** A bearer secret: prefix plus 32 random bytes (256 bits), base64url. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

export function constantTimeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}
