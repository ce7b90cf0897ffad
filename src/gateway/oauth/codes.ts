// Device-flow codes (RFC 8628 §5.1, §6.1): the user code is 8 characters of the base-20 consonant
// alphabet shown as `XXXX-XXXX` (34.6 bits; guessing is bounded by the device limiter), drawn by
// rejection sampling so every character is equally likely; the device code carries 256 random bits.
import { randomBytes } from "node:crypto";

export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

/** One character index in [0, 20) without modulo bias: bytes >= 240 are thrown away. */
function unbiased(next: () => number): number {
  for (;;) {
    const byte = next();
    if (byte < 240) return byte % 20;
  }
}

export function newUserCode(random: (n: number) => Uint8Array = randomBytes): string {
  let pool = random(16);
  let i = 0;
  const next = () => {
    if (i === pool.length) {
      pool = random(16);
      i = 0;
    }
    return pool[i++]!;
  };
  let code = "";
  for (let k = 0; k < 8; k++) code += USER_CODE_ALPHABET[unbiased(next)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

export function newDeviceCode(): string {
  return randomBytes(32).toString("base64url");
}
