// The admin lists (principals, OAuth clients, a principal's tokens) keep one order on both dialects:
// creation time, then id (ids sort by creation time). Rows created in the same millisecond tie on the time,
// and without the id the order of ties was whatever the database's scan and sort gave (SQLite: rowid;
// PostgreSQL: neither promised nor the same after UPDATEs move rows), so the lists differed by dialect.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { OAuthClientStore } from "../../src/gateway/auth/oauth-clients.ts";
import { startTestGateway, type TestGateway } from "./helpers.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

const byId = (ids: string[]) => [...ids].sort();

test("principals: one millisecond, renamed ones included, listed by id", async () => {
  const created: string[] = [];
  for (let i = 0; i < 6; i++) created.push((await gw.ctx.principals.create(`same-ms-${i}`)).id);
  for (const id of created.slice(0, 3)) await gw.ctx.principals.rename(id, "renamed");
  expect((await gw.ctx.principals.list()).map((p) => p.id)).toEqual(byId(created));
});

test("OAuth clients and a principal's tokens: the same", async () => {
  const store = new OAuthClientStore(gw.ctx.db, gw.clock);
  const clients: string[] = [];
  for (let i = 0; i < 6; i++) clients.push((await store.register(`client ${i}`, "public")).client.id);
  const { db } = gw.ctx;
  for (const id of clients.slice(0, 3)) await db.update(db.t.oauthClients).set({ name: "renamed" }).where(eq(db.t.oauthClients.id, id));
  expect((await store.list()).map((c) => c.id).filter((id) => clients.includes(id))).toEqual(byId(clients));

  const owner = (await gw.ctx.principals.create("token-owner")).id;
  const tokens: string[] = [];
  for (let i = 0; i < 6; i++) tokens.push((await gw.ctx.pats.create(owner, `t${i}`)).info.id);
  for (const id of tokens.slice(0, 3)) await db.update(db.t.personalAccessTokens).set({ lastUsedAt: gw.clock.now() }).where(eq(db.t.personalAccessTokens.id, id));
  // Newest first, then by id the other way round.
  expect((await gw.ctx.pats.list(owner)).map((t) => t.id)).toEqual(byId(tokens).reverse());
});
