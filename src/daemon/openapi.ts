// The daemon's OpenAPI 3.1 document (`agent print daemon-openapi`), rendered from the route schemas of
// app.ts without a session: the routes are registered, never run.
import { openapi } from "@elysiajs/openapi";
import { elysiaApp } from "../util/elysia-app.ts";
import { VERSION } from "../version.ts";
import { buildDaemonApp } from "./app.ts";
import type { Daemon } from "./daemon.ts";

const SPEC_PATH = "/openapi.json";

/** Only the request hook touches the daemon before a handler runs; no handler runs here. */
const NO_SESSION = { touch() {} } as unknown as Daemon;

export async function daemonOpenApiDocument(): Promise<Record<string, unknown>> {
  const app = elysiaApp()
    .use(
      openapi({
        path: "/openapi",
        specPath: SPEC_PATH,
        provider: null,
        documentation: {
          openapi: "3.1.0",
          info: {
            title: "agent session daemon",
            version: VERSION,
            description:
              "The HTTP surface of one session daemon (client-protocol.md), on 127.0.0.1 only. Every route needs `Authorization: Bearer <token>` (the session's credential file) and a loopback Host. Sync records and SSE frames: `agent print sync-event-schema`.",
          },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "The session's daemon credential (credential.json)" } } },
          security: [{ bearer: [] }],
        },
        exclude: { paths: [SPEC_PATH] },
      }),
    )
    .use(buildDaemonApp(NO_SESSION, { logger: { error() {} }, secrets: [] }));
  const res = await app.handle(new Request(`http://localhost${SPEC_PATH}`));
  return (await res.json()) as Record<string, unknown>;
}
