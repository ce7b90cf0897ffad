// A JSON body nested thousands of levels deep once cost the daemon a 500 (a parser's or validator's stack):
// it is refused with 400 before any parser sees it, and the daemon keeps answering.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startHarness, TOKEN, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

test("a JSON body nested more than 64 levels is a 400 naming the limit; brackets inside strings do not count", async () => {
  for (const n of [65, 20_000, 200_000]) {
    const res = await fetch(`${h.url}/prompt`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" }, body: `{"text":${"[".repeat(n)}${"]".repeat(n)}}` });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "bad_request", message: expect.stringContaining("64 levels") });
  }
  const inString = await h.post("/prompt", { text: "[".repeat(10_000) });
  expect(inString.status).not.toBe(400);
  expect((await h.get("/health")).status).toBe(200);
});

test("a 422 says where the body failed and what was expected, never the value sent", async () => {
  // Elysia's summary of a wrong-typed field quotes the value ("... to be string but found: 4111..."): a
  // card number or a numeric PIN pasted into the prompt field must not come back in the answer.
  const pasted = 4111111111111111;
  const res = await fetch(`${h.url}/prompt`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" }, body: JSON.stringify({ text: pasted }) });
  expect(res.status).toBe(422);
  const text = await res.text();
  expect(text).not.toContain(String(pasted));
  expect(JSON.parse(text)).toMatchObject({ code: "validation_failed", errors: [{ path: "/text", message: "Expected property 'text' to be string" }] });
});
