// IP address handling for the network policy and rate limits: parsing, canonical forms, CIDR matching,
// the rate-limit key (IPv6 /64), and the client address behind trusted proxies.
import { isIP } from "node:net";

/** Parses an IPv4 or IPv6 address to bytes (4 or 16); undefined when it is not an address. */
export function ipBytes(address: string): Uint8Array | undefined {
  const a = stripZone(address);
  const kind = isIP(a);
  if (kind === 4) return Uint8Array.from(a.split(".").map(Number));
  if (kind !== 6) return undefined;
  let text = a;
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    tail.push(...v4[1]!.split(".").map(Number));
    text = `${text.slice(0, -v4[1]!.length)}0:0`;
  }
  const [head, rest] = text.includes("::") ? text.split("::") as [string, string] : [text, undefined];
  const groups = (s: string) => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  const h = groups(head);
  const r = rest === undefined ? [] : groups(rest);
  const words = rest === undefined ? h : [...h, ...new Array(8 - h.length - r.length).fill(0), ...r];
  const out = new Uint8Array(16);
  words.forEach((w, i) => {
    out[i * 2] = (w >> 8) & 0xff;
    out[i * 2 + 1] = w & 0xff;
  });
  if (tail.length === 4) out.set(tail, 12);
  return out;
}

function stripZone(address: string): string {
  const pct = address.indexOf("%");
  return pct === -1 ? address : address.slice(0, pct);
}

export function isValidIp(address: string): boolean {
  return isIP(stripZone(address)) !== 0;
}

function isMappedV4(b: Uint8Array): boolean {
  return b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}

function formatV6(b: Uint8Array): string {
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((b[i]! << 8) | b[i + 1]!);
  // Longest run of zero words becomes "::" (RFC 5952).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best === -1) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}

/** Canonical text of an address: IPv4-mapped IPv6 becomes IPv4, IPv6 is compressed lowercase. */
export function canonicalIp(address: string): string | undefined {
  const b = ipBytes(address);
  if (!b) return undefined;
  if (b.length === 4) return [...b].join(".");
  if (isMappedV4(b)) return [...b.slice(12)].join(".");
  return formatV6(b);
}

/** The key a rate limiter counts under: the IPv4 address, or the IPv6 /64 prefix. */
export function rateLimitKey(address: string): string {
  const b = ipBytes(address);
  if (!b) return address;
  if (b.length === 4 || isMappedV4(b)) return canonicalIp(address)!;
  const prefix = new Uint8Array(16);
  prefix.set(b.slice(0, 8));
  return `${formatV6(prefix)}/64`;
}

export interface Cidr {
  bytes: Uint8Array;
  bits: number;
}

/** Parses `addr/bits` (or a bare address as a host route); IPv4-mapped forms are treated as IPv4. */
export function parseCidr(text: string): Cidr | undefined {
  const [addr, bitsText, extra] = text.split("/");
  if (extra !== undefined || addr === undefined) return undefined;
  let bytes = ipBytes(addr);
  if (!bytes) return undefined;
  let bits = bitsText === undefined ? bytes.length * 8 : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!Number.isInteger(bits) || bits < 0 || bits > bytes.length * 8) return undefined;
  if (isMappedV4(bytes) && bits >= 96) {
    bytes = bytes.slice(12);
    bits -= 96;
  }
  return { bytes, bits };
}

export function cidrContains(cidr: Cidr, address: string): boolean {
  let b = ipBytes(address);
  if (!b) return false;
  if (isMappedV4(b)) b = b.slice(12);
  if (b.length !== cidr.bytes.length) return false;
  let bits = cidr.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((b[i]! & mask) !== (cidr.bytes[i]! & mask)) return false;
  }
  return true;
}

/**
 * The client address: the socket peer, unless the peer is a trusted proxy; then the rightmost
 * `X-Forwarded-For` entry that is not itself a trusted proxy (entries to its left are client-supplied).
 */
export function clientAddress(peer: string, forwardedFor: string | null, trusted: readonly Cidr[]): string {
  const peerCanon = canonicalIp(peer) ?? peer;
  const isTrusted = (a: string) => trusted.some((c) => cidrContains(c, a));
  if (!forwardedFor || trusted.length === 0 || !isTrusted(peerCanon)) return peerCanon;
  const hops = forwardedFor.split(",").map((s) => s.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonicalIp(hops[i]!);
    if (!hop) return peerCanon; // a garbled entry: do not trust anything left of it
    if (!isTrusted(hop)) return hop;
  }
  return peerCanon;
}

export function isLoopback(address: string): boolean {
  const c = canonicalIp(address);
  return c !== undefined && (c === "::1" || c.startsWith("127."));
}
