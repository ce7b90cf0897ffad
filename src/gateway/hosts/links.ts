// The host connections this front holds, by host name: at most one per host (a host's newer connection
// replaces its older one, hosts/connect-route.ts). Front routing forwards a host's requests through its
// entry; presence (hosts/presence.ts) keeps every held host online.
import type { MuxConnection } from "./mux/connection.ts";

export interface HostLink {
  hostName: string;
  connection: MuxConnection;
  /** The host credential the connection was opened with (hcr_...). */
  credentialId: string;
  /** When this front accepted it (ms, the gateway clock). */
  since: number;
}

export type HostLinkListener = (hostName: string, connection: MuxConnection | undefined) => void;

export class HostLinks {
  private readonly links = new Map<string, HostLink>();
  private readonly listeners = new Set<HostLinkListener>();

  get(hostName: string): MuxConnection | undefined {
    return this.links.get(hostName)?.connection;
  }

  /** Every link held now. */
  all(): HostLink[] {
    return [...this.links.values()];
  }

  /** Holds `link` for its host; returns the link it replaces (the caller closes it). */
  add(link: HostLink): HostLink | undefined {
    const previous = this.links.get(link.hostName);
    this.links.set(link.hostName, link);
    this.emit(link.hostName, link.connection);
    return previous;
  }

  /** Drops the host's link if it is still `connection` (a replaced connection closing later changes nothing). */
  remove(hostName: string, connection: MuxConnection): boolean {
    if (this.links.get(hostName)?.connection !== connection) return false;
    this.links.delete(hostName);
    this.emit(hostName, undefined);
    return true;
  }

  /** Told when a host's link appears, is replaced or goes (undefined); returns the unsubscribe function. */
  onChange(listener: HostLinkListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Closes every link (the front stops). */
  closeAll(code: number, reason: string): void {
    for (const link of [...this.links.values()]) link.connection.close(code, reason);
    this.links.clear();
  }

  private emit(hostName: string, connection: MuxConnection | undefined): void {
    for (const listener of this.listeners) {
      try {
        listener(hostName, connection);
      } catch {
        // A listener's failure is its own: the registry stays consistent for the others.
      }
    }
  }
}
