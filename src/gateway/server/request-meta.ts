// Facts the edge learns about a request before the app sees it (client IP, request id), keyed by the
// Request object so no header can spoof them.
export interface RequestMeta {
  ip: string;
  requestId: string;
  /** The origin the client addressed: this listener's scheme and the (validated) Host header. */
  origin?: string;
  /** Lifts the idle timeout of this request's connection (long-lived responses such as SSE). */
  keepOpen?: () => void;
}

const meta = new WeakMap<Request, RequestMeta>();

export function setRequestMeta(request: Request, value: RequestMeta): void {
  meta.set(request, value);
}

export function requestMeta(request: Request): RequestMeta {
  return meta.get(request) ?? { ip: "127.0.0.1", requestId: "req_local" };
}
