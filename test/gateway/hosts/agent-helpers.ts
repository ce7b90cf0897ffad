// A front and a host agent for the host agent's tests: a real gateway (the front) that holds the host's
// connections and serves them the session store and the services routes (serve.ts), a project registered on the host, the front's public
// API (which routes the host's sessions to it), and the host API reached through the front's link.
import { sqlAll, startTestGateway, type TestGateway } from "../helpers.ts";
import { api, FAST, machineToken, registerProject, until } from "../sessions/helpers.ts";

export const HOST = "build-1";

/** A front (it serves the store and the services routes on each host connection), with a project of `host` registered. */
export async function hostFront(host = HOST, projectOptions: Parameters<typeof registerProject>[1] = {}) {
  const gw = await startTestGateway(`host_name: front-a\n${FAST}`);
  const { token } = await gw.ctx.hostCredentials.create(host);
  const project = await registerProject(gw, projectOptions);
  await sqlAll(gw.ctx.db, "UPDATE projects SET owner_host = ? WHERE id = ?", [host, project.projectId]);
  /** The host API through the front's link, as front routing sends it. */
  const toHost = async (method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> => {
    await until(() => gw.ctx.hostLinks.get(host) !== undefined, `the front to hold ${host}`);
    return gw.ctx.hostLinks.get(host)!.fetch(new Request(`http://host${path}`, { method, signal, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }));
  };
  /** The session's row as the front's database has it. */
  const row = (id: string) => gw.ctx.sessions.store.session(id);
  /** The front's public API with a machine token (what `agent gateway session` and `agent connect` use). */
  const machine = await machineToken(gw);
  const front = api({ url: gw.url, token: machine });
  /** A request to the front's public listener with that token. */
  const publicFetch = (path: string, init: RequestInit = {}) => fetch(`${gw.url}${path}`, { ...init, headers: { authorization: `Bearer ${machine}`, ...(init.headers as Record<string, string> | undefined) } });
  return { gw, token, project, toHost, row, front, publicFetch };
}
