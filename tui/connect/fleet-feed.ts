// Keeps a FleetStore current (client-protocol.md, Fleet routes): fetch the catalog (every page of one
// snapshot), then follow `GET /api/v1/events?after=<cursor>&expected_epoch=<epoch>` and apply each event.
// A lost stream (closed, or silent past the liveness deadline) resumes from the last applied cursor after
// a growing wait (reconnect-loop.ts, shared with the conversation view); a reset, a 410 (stale cursor,
// new epoch, expired snapshot) or an event of another epoch starts again from a new catalog. `refresh` (the picker's `r`) fetches a new catalog at once.
import { openWithin, parseSse, type SseOptions } from "../../src/client/daemon-sse.ts";
import { ReconnectLoop, type BackoffOptions } from "../reconnect-loop.ts";
import type { CatalogPage, FleetStore, WireEvent } from "./fleet-store.ts";

/** A GET on the gateway with the caller's token and transport. */
export type GatewayGet = (path: string, signal?: AbortSignal) => Promise<Response>;

export class FleetRequestError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
    this.name = "FleetRequestError";
  }
}

export interface FleetFeedOptions extends BackoffOptions {
  /** When a silent fleet stream (no event, no heartbeat) counts as dead: shown as reconnecting, then resumed. */
  liveness?: SseOptions;
}

export class FleetFeed {
  private readonly loop: ReconnectLoop;
  private needCatalog = true;

  constructor(
    private readonly get: GatewayGet,
    private readonly store: FleetStore,
    private readonly options: FleetFeedOptions = {},
  ) {
    this.loop = new ReconnectLoop(options);
  }

  /** Every page of a new catalog snapshot, into the store. */
  async loadCatalog(signal?: AbortSignal): Promise<void> {
    const first = await this.json<CatalogPage>("/api/v1/catalog", signal);
    const pages = [first];
    for (let next = first.page.next; next !== null; ) {
      const page = await this.json<CatalogPage>(`/api/v1/catalog?snapshot=${encodeURIComponent(first.snapshot)}&page=${next}`, signal);
      pages.push(page);
      next = page.page.next;
    }
    this.store.loadCatalog(pages);
  }

  /** Fetches a new catalog now (and resumes the stream from it). */
  refresh(): void {
    this.needCatalog = true;
    this.loop.connected();
    this.store.setFeed("loading");
    this.loop.restart();
  }

  /** Follows until `signal` aborts. */
  run(signal: AbortSignal): Promise<void> {
    return this.loop.run(signal, {
      follow: async (round) => {
        if (this.needCatalog) {
          await this.loadCatalog(round);
          this.needCatalog = false;
        }
        await this.follow(round);
        if (!round.aborted) throw new Error("the gateway ended the event stream");
      },
      lost: (error) => {
        if (error instanceof FleetRequestError && (error.status === 410 || error.code === "invalid_cursor")) this.needCatalog = true;
        this.store.setFeed("reconnecting", describe(error));
        return "wait";
      },
    });
  }

  private async follow(signal: AbortSignal): Promise<void> {
    const query = `after=${encodeURIComponent(this.store.cursor!)}&expected_epoch=${encodeURIComponent(this.store.epoch!)}`;
    const res = await openWithin((open) => this.get(`/api/v1/events?${query}`, open), signal, this.options.liveness);
    if (!res.ok) throw await refusal(res);
    this.loop.connected();
    this.store.setFeed("live");
    for await (const msg of parseSse(res.body!, this.options.liveness)) {
      if ("comment" in msg || !msg.data) continue;
      const event = JSON.parse(msg.data) as WireEvent;
      if (!this.store.apply(event)) {
        this.needCatalog = true;
        throw new FleetRequestError(410, "reset_required", "the gateway reset the fleet stream; fetching a new catalog");
      }
    }
  }

  private async json<T>(path: string, signal?: AbortSignal): Promise<T> {
    const res = await this.get(path, signal);
    if (!res.ok) throw await refusal(res);
    return (await res.json()) as T;
  }
}

async function refusal(res: Response): Promise<FleetRequestError> {
  const body = (await res.json().catch(() => ({}))) as { code?: unknown; error?: unknown; message?: unknown };
  const code = String(body.code ?? body.error ?? `http_${res.status}`);
  if (res.status === 401) return new FleetRequestError(401, code, "the gateway no longer accepts the sign-in (401); run agent connect again");
  if (res.status === 403) return new FleetRequestError(403, code, "the sign-in lacks the machine scope the session list needs (403)");
  return new FleetRequestError(res.status, code, typeof body.message === "string" ? `${code}: ${body.message}` : `the gateway answered ${res.status} ${code}`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
