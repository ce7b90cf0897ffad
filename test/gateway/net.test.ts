import { describe, expect, test } from "bun:test";
import { FakeClock } from "../fakes/fake-clock.ts";
import { canonicalIp, clientAddress, parseCidr, rateLimitKey, type Cidr } from "../../src/util/ip.ts";
import { FailureLimiter, RateLimiter } from "../../src/gateway/net/rate-limit.ts";
import { openGatewayDb } from "../../src/gateway/db/open.ts";
import { startTestGateway } from "./helpers.ts";

const cfg = { max_attempts: 5, window_secs: 60, lockout_secs: 300 };

describe("IP keys", () => {
  test("IPv4-mapped IPv6 is canonicalized to IPv4; IPv6 is keyed by its /64", () => {
    expect(canonicalIp("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(canonicalIp("::FFFF:c000:0207")).toBe("192.0.2.7");
    expect(canonicalIp("2001:DB8:0:0:0:0:0:1")).toBe("2001:db8::1");
    expect(rateLimitKey("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(rateLimitKey("2001:db8:aa:bb:1:2:3:4")).toBe("2001:db8:aa:bb::/64");
    expect(rateLimitKey("2001:db8:aa:bb:ffff::9")).toBe("2001:db8:aa:bb::/64");
    expect(rateLimitKey("2001:db8:aa:bc::1")).toBe("2001:db8:aa:bc::/64");
  });

  test("X-Forwarded-For is honoured only from trusted proxies, rightmost untrusted hop wins", () => {
    const trusted = ["10.0.0.0/8", "fd00::/8"].map((c) => parseCidr(c)!) as Cidr[];
    expect(clientAddress("203.0.113.9", "198.51.100.1", trusted)).toBe("203.0.113.9");
    expect(clientAddress("10.1.2.3", "198.51.100.1", trusted)).toBe("198.51.100.1");
    expect(clientAddress("10.1.2.3", "6.6.6.6, 198.51.100.1, 10.9.9.9", trusted)).toBe("198.51.100.1");
    expect(clientAddress("::ffff:10.1.2.3", "::ffff:198.51.100.1", trusted)).toBe("198.51.100.1");
    expect(clientAddress("10.1.2.3", "10.2.2.2", trusted)).toBe("10.1.2.3");
    expect(clientAddress("10.1.2.3", "garbage", trusted)).toBe("10.1.2.3");
    expect(clientAddress("10.1.2.3", "198.51.100.1", [])).toBe("10.1.2.3");
  });
});

/** A migrated in-memory gateway database: the failure limiters keep their counters there. */
const memoryDb = () => openGatewayDb(":memory:").db;

describe("rate limiter", () => {
  test("failure counting: max_attempts failures pass, the next attempt is locked with Retry-After", async () => {
    const clock = new FakeClock();
    const limiter = new FailureLimiter("login", cfg, clock, memoryDb());
    for (let i = 0; i < 5; i++) {
      const a = await limiter.admit("192.0.2.1");
      expect(a.allowed).toBe(true);
      if (a.allowed) await a.ticket.fail();
    }
    const sixth = await limiter.admit("192.0.2.1");
    expect(sixth).toEqual({ allowed: false, retryAfterSecs: 300 });
    expect((await limiter.admit("192.0.2.2")).allowed).toBe(true);
  });

  test("successes and internal errors do not count", async () => {
    const limiter = new FailureLimiter("login", cfg, new FakeClock(), memoryDb());
    for (let i = 0; i < 20; i++) {
      const a = await limiter.admit("192.0.2.1");
      expect(a.allowed).toBe(true);
      if (a.allowed) await (i % 2 ? a.ticket.succeed() : a.ticket.abort());
    }
  });

  test("lockout expires on the clock; failures slide out of the window", async () => {
    const clock = new FakeClock();
    const limiter = new FailureLimiter("login", cfg, clock, memoryDb());
    const fail = async () => {
      const a = await limiter.admit("192.0.2.1");
      if (!a.allowed) return a.retryAfterSecs;
      await a.ticket.fail();
      return 0;
    };
    for (let i = 0; i < 5; i++) expect(await fail()).toBe(0);
    expect(await fail()).toBe(300);
    clock.advance(299_000);
    expect(await fail()).toBe(1);
    clock.advance(1_000);
    expect(await fail()).toBe(0);
    // Four failures, then the window passes: the count starts over.
    for (let i = 0; i < 3; i++) await fail();
    clock.advance(61_000);
    for (let i = 0; i < 5; i++) expect(await fail()).toBe(0);
    expect(await fail()).toBe(300);
  });

  test("a parallel burst counts every attempt in flight", async () => {
    const limiter = new FailureLimiter("login", cfg, new FakeClock(), memoryDb());
    const admitted = (await Promise.all(Array.from({ length: 50 }, () => limiter.admit("192.0.2.1")))).filter((a) => a.allowed);
    expect(admitted).toHaveLength(5);
  });

  test("request counting (OAuth resource): every request counts, limit+1 is refused", () => {
    const limiter = new RateLimiter("oauth_resource", { max_attempts: 20, window_secs: 300, lockout_secs: 600 }, new FakeClock());
    for (let i = 0; i < 20; i++) expect(limiter.admit("2001:db8:1:2::1").allowed).toBe(true);
    expect(limiter.admit("2001:db8:1:2::99")).toEqual({ allowed: false, retryAfterSecs: 600 });
    expect(limiter.admit("2001:db8:1:3::1").allowed).toBe(true);
  });

  test("IPv6 addresses in one /64 share a budget; a mapped IPv4 shares its IPv4's", async () => {
    const limiter = new FailureLimiter("login", cfg, new FakeClock(), memoryDb());
    for (let i = 0; i < 5; i++) {
      const a = await limiter.admit(i % 2 ? "::ffff:192.0.2.5" : "192.0.2.5");
      if (a.allowed) await a.ticket.fail();
    }
    expect((await limiter.admit("192.0.2.5")).allowed).toBe(false);
    for (let i = 0; i < 5; i++) {
      const a = await limiter.admit(`2001:db8::${i + 1}`);
      if (a.allowed) await a.ticket.fail();
    }
    expect((await limiter.admit("2001:db8::ffff:1")).allowed).toBe(false);
  });
});

describe("lockout persistence", () => {
  test("a lockout survives a restart (a new limiter on the same database)", async () => {
    const gw = await startTestGateway();
    const first = new FailureLimiter("login", cfg, gw.clock, gw.ctx.db);
    for (let i = 0; i < 5; i++) {
      const a = await first.admit("192.0.2.9");
      if (a.allowed) await a.ticket.fail();
    }
    expect((await first.admit("192.0.2.9")).allowed).toBe(false);
    gw.clock.advance(100_000);
    const restarted = new FailureLimiter("login", cfg, gw.clock, gw.ctx.db);
    expect(await restarted.admit("192.0.2.9")).toEqual({ allowed: false, retryAfterSecs: 200 });
    gw.clock.advance(200_000);
    expect((await new FailureLimiter("login", cfg, gw.clock, gw.ctx.db).admit("192.0.2.9")).allowed).toBe(true);
    await gw.stop();
  });
});

describe("network policy at the edge", () => {
  test("deny beats allow; other IPs get 403 when an allow list exists", async () => {
    const gw = await startTestGateway("network:\n  allow_ips: [127.0.0.1]\n  deny_ips: [127.0.0.1]\n");
    const res = await fetch(`${gw.url}/api/v1/health`);
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('{"error":"forbidden"}');
    await gw.stop();
    const other = await startTestGateway("network:\n  allow_ips: [192.0.2.10]\n");
    expect((await fetch(`${other.url}/api/v1/health`)).status).toBe(403);
    expect((await fetch(`${other.url}/login`)).status).toBe(403);
    await other.stop();
    const allowed = await startTestGateway("network:\n  allow_ips: [127.0.0.1]\n");
    expect((await fetch(`${allowed.url}/api/v1/health`)).status).toBe(200);
    await allowed.stop();
  });

  test("behind a trusted proxy the forwarded client IP is the one filtered", async () => {
    const gw = await startTestGateway("  trusted_proxies: [127.0.0.0/8]\nnetwork:\n  deny_ips: [198.51.100.7]\n");
    expect((await fetch(`${gw.url}/api/v1/health`, { headers: { "X-Forwarded-For": "198.51.100.7" } })).status).toBe(403);
    expect((await fetch(`${gw.url}/api/v1/health`, { headers: { "X-Forwarded-For": "198.51.100.8" } })).status).toBe(200);
    await gw.stop();
    const untrusted = await startTestGateway("network:\n  deny_ips: [198.51.100.7]\n");
    expect((await fetch(`${untrusted.url}/api/v1/health`, { headers: { "X-Forwarded-For": "198.51.100.7" } })).status).toBe(200);
    await untrusted.stop();
  });
});
