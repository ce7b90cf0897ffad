// Session commands over real HTTP (`GET /commands`, `POST /commands/{name}`): listed for `/help`, run once
// per operation key, typed errors for unknown names and bad arguments.
import { afterEach, describe, expect, test } from "bun:test";
import { type Harness, operationContext, startHarness } from "./harness.ts";

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

const context = () => operationContext(h);

describe("session commands", () => {
  test("GET /commands lists what the engine offers", async () => {
    h = await startHarness();
    const res = await h.get("/commands");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ commands: [{ name: "echo", usage: "/echo WORDS...", summary: "Answers with its arguments" }] });
  });

  test("a command runs and a retry with the same operation returns the stored result without running again", async () => {
    h = await startHarness();
    const ctx = await context();
    const first = await h.post("/commands/echo", { args: ["hello", "there"], operation_context: ctx });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ name: "echo", message: "hello there", operation: { status: "completed", operation: ctx.operation } });
    const retry = await h.post("/commands/echo", { args: ["hello", "there"], operation_context: ctx });
    expect((await retry.json()).message).toBe("hello there");
    expect(h.engine().commandRuns).toBe(1);
    const conflict = await h.post("/commands/echo", { args: ["other"], operation_context: ctx });
    expect(conflict.status).toBe(409);
    expect((await conflict.json()).code).toBe("operation_payload_conflict");
  });

  test("unknown commands, bad names and bad arguments get typed errors", async () => {
    h = await startHarness();
    const unknown = await h.post("/commands/nope", {});
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "unknown_command", message: expect.stringContaining("/echo") });
    const badName = await h.post("/commands/..%2Fetc", {});
    expect(badName.status).toBe(404);
    const invalid = await h.post("/commands/echo", { args: [] });
    expect(invalid.status).toBe(422);
    expect((await invalid.json()).code).toBe("invalid_command");
    const wrongShape = await h.post("/commands/echo", { args: "not-a-list" });
    expect(wrongShape.status).toBe(422);
    expect((await wrongShape.json()).code).toBe("validation_failed");
  });
});
