// RFC 7235 §2.1: the authentication scheme name is case-insensitive; only the token itself is exact.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { machineToken } from "./sessions/helpers.ts";
import { startTestGateway, type TestGateway } from "./helpers.ts";

let gw: TestGateway;
let token: string;
beforeAll(async () => {
  gw = await startTestGateway();
  token = await machineToken(gw);
});
afterAll(() => gw.stop());

test("bearer, BEARER and Bearer are the same scheme; a changed token or a second space is still refused", async () => {
  for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
    const res = await fetch(`${gw.url}/api/v1/sessions`, { headers: { Authorization: `${scheme} ${token}` } });
    expect([scheme, res.status]).toEqual([scheme, 200]);
  }
  for (const header of [`bearer ${token.toUpperCase()}`, `Bearer  ${token}`, `Basic ${token}`, `Bearer${token}`]) {
    expect((await fetch(`${gw.url}/api/v1/sessions`, { headers: { Authorization: header } })).status).toBe(401);
  }
});
