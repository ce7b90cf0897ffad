// The verified-token cache (src/gateway/auth/verified-cache.ts) on a stamp the test moves by hand: a
// lookup read before a change and stored after it must not survive the change. On PostgreSQL that is a
// revocation whose notification arrives while another request's token lookup is in flight.
import { describe, expect, test } from "bun:test";
import { VerifiedCache, type DbStamp } from "../../src/gateway/auth/verified-cache.ts";

class HandStamp implements DbStamp {
  value = 0;
  current(): number {
    return this.value;
  }
}

describe("VerifiedCache", () => {
  test("serves what was stored while the stamp holds, and nothing once it moves", () => {
    const stamp = new HandStamp();
    const cache = new VerifiedCache<string>(stamp);
    expect(cache.get("h")).toBeUndefined();
    cache.set("h", "valid", cache.since);
    expect(cache.get("h")).toBe("valid");
    stamp.value++;
    expect(cache.get("h")).toBeUndefined();
  });

  test("a read that started before a change is not stored after it, even when another lookup already saw the new stamp", () => {
    const stamp = new HandStamp();
    const cache = new VerifiedCache<string>(stamp);
    expect(cache.get("h")).toBeUndefined();
    const since = cache.since; // the read of "h" starts: the token is still valid in the database
    stamp.value++; // the token is revoked and the change announced while that read is in flight
    expect(cache.get("other")).toBeUndefined(); // another request empties the cache at the new stamp
    cache.set("h", "valid", since); // the stale read completes
    expect(cache.get("h")).toBeUndefined();
  });

  test("a stamp that moves on every read (a database it cannot vouch for) keeps nothing", () => {
    let n = 0;
    const cache = new VerifiedCache<string>({ current: () => ++n });
    cache.get("h");
    cache.set("h", "valid", cache.since);
    expect(cache.get("h")).toBeUndefined();
  });
});
