// A minimal RFC 8628 authorization server on 127.0.0.1:0: device authorization, a scripted sequence of
// polling answers, and refresh with rotation. Records every form it receives.
import type { Server } from "bun";

export interface DeviceAuthFake {
  url: string;
  forms: { path: string; form: Record<string, string>; contentType: string | null }[];
  stop(): Promise<void>;
}

export function startDeviceAuthFake(opts: { polls: string[]; interval?: number | null; expiresIn?: number; refreshError?: string }): DeviceAuthFake {
  const forms: DeviceAuthFake["forms"] = [];
  let poll = 0;
  let generation = 0;
  const tokens = () => {
    generation++;
    return { access_token: `at_${generation}_${"x".repeat(20)}`, refresh_token: `rt_${generation}_${"y".repeat(20)}`, token_type: "Bearer", expires_in: 3600 };
  };
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const form = Object.fromEntries(new URLSearchParams(await req.text()));
      forms.push({ path, form, contentType: req.headers.get("content-type") });
      const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { "cache-control": "no-store" } });
      if (path === "/device/code") {
        if (!form.client_id) return json({ error: "invalid_request" }, 400);
        return json({
          device_code: "dc_secret_device_code_123",
          user_code: "WDJB-MJHT",
          verification_uri: `${url}/device`,
          verification_uri_complete: `${url}/device?user_code=WDJB-MJHT`,
          expires_in: opts.expiresIn ?? 600,
          ...(opts.interval === null ? {} : { interval: opts.interval ?? 5 }),
        });
      }
      if (path === "/token" && form.grant_type === "urn:ietf:params:oauth:grant-type:device_code") {
        if (form.device_code !== "dc_secret_device_code_123") return json({ error: "invalid_grant" }, 400);
        const answer = opts.polls[poll++] ?? "ok";
        return answer === "ok" ? json(tokens()) : json({ error: answer }, 400);
      }
      if (path === "/token" && form.grant_type === "refresh_token") {
        if (opts.refreshError) return json({ error: opts.refreshError, error_description: "refresh token revoked" }, 400);
        if (form.refresh_token !== `rt_${generation}_${"y".repeat(20)}`) return json({ error: "invalid_grant" }, 400);
        return json(tokens());
      }
      return json({ error: "not_found" }, 404);
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return { url, forms, stop: () => server.stop(true) };
}
