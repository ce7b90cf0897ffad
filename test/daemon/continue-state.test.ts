// A stopped session that is continued (the launcher sets it running, then starts a daemon) journals that
// it runs again, so a client replaying from the origin does not end on the old "stopped" record.
import { afterEach, expect, test } from "bun:test";
import { openSession } from "../../src/daemon/store/index.ts";
import { type Harness, readSse, recordsOf, startHarness } from "./harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function journaledStates(harness: Harness): Promise<string[]> {
  const snap = await (await harness.get("/sync")).json();
  const res = await harness.get(`/events?after=${encodeURIComponent(snap.origin_cursor)}`);
  const events = await readSse(res, (seen) => recordsOf(seen).some((r) => r.seq === snap.seq));
  return recordsOf(events)
    .filter((r) => r.type === "session_state")
    .map((r) => r.state);
}

test("continuing a stopped session journals session_state running after the stop", async () => {
  h = await startHarness();
  const dir = h.dir;
  expect((await h.post("/prompt", { text: "hello" })).status).toBe(202);
  await h.engine().idle();
  expect((await h.post("/session/stop", {})).status).toBe(200);
  await h.stop();

  const store = openSession(dir);
  store.setState("running");
  store.close();
  h = await startHarness({ dir });
  expect((await (await h.get("/sync")).json()).session_state).toBe("running");
  expect(await journaledStates(h)).toEqual(["stopping", "stopped", "running"]);

  // A plain restart of a running session adds nothing.
  await h.stop();
  h = await startHarness({ dir });
  expect(await journaledStates(h)).toEqual(["stopping", "stopped", "running"]);
});
