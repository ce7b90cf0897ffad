import { describe, expect, test } from "bun:test";
import { PasswordHasher, PasswordRuleError, QUEUE_PER_SLOT } from "../../src/gateway/auth/password.ts";
import { ProtocolError } from "../../src/protocol/errors.ts";

const pepper = new TextEncoder().encode("p".repeat(43));
const policy = { memory_kib: 8192, time_cost: 1, max_password_bytes: 16, max_concurrent_hashes: 1 };

describe("password hashing", () => {
  test("rules: at least 8 characters, at most max_password_bytes bytes (multi-byte characters count as bytes)", async () => {
    const h = new PasswordHasher(pepper, policy);
    expect(h.hash("short")).rejects.toThrow(new PasswordRuleError("passwords need at least 8 characters"));
    expect(h.hash("ééééééééé")).rejects.toThrow("passwords are limited to 16 bytes");
    const hash = await h.hash("exactly16bytes!!");
    expect(await h.verify("exactly16bytes!!", hash)).toBe(true);
    expect(await h.verify("exactly16bytes!!x", hash)).toBe(false);
  });

  test("a different pepper does not verify; a missing hash never verifies", async () => {
    const h = new PasswordHasher(pepper, policy);
    const hash = await h.hash("password-123");
    expect(await new PasswordHasher(new TextEncoder().encode("q".repeat(43)), policy).verify("password-123", hash)).toBe(false);
    expect(await h.verify("password-123", undefined)).toBe(false);
  });

  test("beyond max_concurrent_hashes jobs queue; past the queue bound they fail fast with 503", async () => {
    const h = new PasswordHasher(pepper, policy);
    const hash = await h.hash("password-123");
    const jobs = Array.from({ length: QUEUE_PER_SLOT + 5 }, () => h.verify("password-123", hash).then(() => "ok", (e) => e));
    const results = await Promise.all(jobs);
    const refused = results.filter((r) => r instanceof ProtocolError);
    expect(refused.length).toBe(4);
    expect((refused[0] as ProtocolError).status).toBe(503);
    expect(results.filter((r) => r === "ok").length).toBe(QUEUE_PER_SLOT + 1);
  });

  test("queued jobs run lowest priority number first (failing sources wait)", async () => {
    const h = new PasswordHasher(pepper, policy);
    const hash = await h.hash("password-123");
    const order: string[] = [];
    const run = (name: string, priority: number) => h.verify("password-123", hash, priority).then(() => order.push(name));
    await Promise.all([run("first", 0), run("flood-a", 3), run("flood-b", 5), run("fresh", 0), run("known-good", -1)]);
    expect(order).toEqual(["first", "known-good", "fresh", "flood-a", "flood-b"]);
  });
});
