// The errors an exchange over the mux fails with: the connection closed, or the exchange was reset.

export class MuxClosedError extends Error {
  override name = "MuxClosedError";
  constructor(message: string, readonly code: number, readonly reason: string) {
    super(message);
  }
}

export class MuxResetError extends Error {
  override name = "MuxResetError";
}
