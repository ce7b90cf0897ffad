// RFC 7235 §2.1: the authentication scheme name is case-insensitive; only the token itself is exact.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startHarness, TOKEN, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

test("bearer, BEARER and Bearer are the same scheme; a changed token or another scheme is still refused", async () => {
  for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
    const res = await fetch(`${h.url}/health`, { headers: { Authorization: `${scheme} ${TOKEN}` } });
    expect([scheme, res.status]).toEqual([scheme, 200]);
  }
  for (const header of [`bearer ${TOKEN.toUpperCase()}`, `Basic ${TOKEN}`, `Bearer${TOKEN}`, "bearer "]) {
    expect((await fetch(`${h.url}/health`, { headers: { Authorization: header } })).status).toBe(401);
  }
});
