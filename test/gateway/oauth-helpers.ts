// Shared pieces of the OAuth tests: raw form posts to the endpoints, client registration, device approval.
import { OAuthClientStore } from "../../src/gateway/auth/oauth-clients.ts";
import type { TestGateway } from "./helpers.ts";
import { WebClient } from "./web-client.ts";

export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

export async function postForm(gw: TestGateway, endpoint: string, form: Record<string, string> | string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}/api/v1/oauth/${endpoint}`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: typeof form === "string" ? form : new URLSearchParams(form).toString(),
  });
}

/** Posts and returns status and parsed JSON body (or null for an empty body). */
export async function call(gw: TestGateway, endpoint: string, form: Record<string, string> | string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await postForm(gw, endpoint, form, headers);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

export function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString("base64")}`;
}

/** A public device-flow client registered through the admin store (scopes: both unless told). */
export async function publicClient(gw: TestGateway, scopes?: string[]): Promise<string> {
  return (await new OAuthClientStore(gw.ctx.db, gw.ctx.clock).register("agent connect", "public", undefined, scopes)).client.id;
}

/** A confidential client-credentials client: [id, secret]. */
export async function confidentialClient(gw: TestGateway, scopes?: string[]): Promise<[string, string]> {
  const { client, secret } = await new OAuthClientStore(gw.ctx.db, gw.ctx.clock).register("ci runner", "confidential", undefined, scopes);
  return [client.id, secret!];
}

/** Signs `username` in and approves (or denies) a user code on /device, keeping only `scopes` ticked. */
export async function decide(gw: TestGateway, web: WebClient, userCode: string, approve: boolean, scopes: string[] = ["machine", "project"]): Promise<void> {
  const page = await web.get(`/device?user_code=${encodeURIComponent(userCode)}`);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`/device answered ${page.status}`);
  const form: Record<string, string> = { csrf: WebClient.csrf(html), user_code: userCode };
  for (const s of scopes) form[`scope_${s}`] = "1";
  const res = await web.post(approve ? "/device/approve" : "/device/deny", form);
  if (res.status !== 303) throw new Error(`device decision answered ${res.status}`);
}
