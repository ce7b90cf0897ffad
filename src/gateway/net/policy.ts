// Source-IP policy: exact allow/deny lists (deny beats allow) and the trusted proxies for X-Forwarded-For.
import { canonicalIp, clientAddress, parseCidr, type Cidr } from "../../util/ip.ts";

export class NetworkPolicy {
  private readonly allow: Set<string>;
  private readonly deny: Set<string>;
  private readonly trusted: Cidr[];

  constructor(cfg: { allow_ips: string[]; deny_ips: string[]; trusted_proxies: string[] }) {
    this.allow = new Set(cfg.allow_ips.map((ip) => canonicalIp(ip) ?? ip));
    this.deny = new Set(cfg.deny_ips.map((ip) => canonicalIp(ip) ?? ip));
    this.trusted = cfg.trusted_proxies.map((c) => parseCidr(c)).filter((c): c is Cidr => c !== undefined);
  }

  /** The client address a request counts as (socket peer, or X-Forwarded-For behind a trusted proxy). */
  clientIp(peer: string, forwardedFor: string | null): string {
    return clientAddress(peer, forwardedFor, this.trusted);
  }

  /** Whether an allow or deny list applies; without one every address is permitted. */
  get filtering(): boolean {
    return this.allow.size > 0 || this.deny.size > 0;
  }

  permits(address: string): boolean {
    const ip = canonicalIp(address) ?? address;
    if (this.deny.has(ip)) return false;
    return this.allow.size === 0 || this.allow.has(ip);
  }
}
