// Sync cursors: opaque tokens for a position in this session's journal, valid in this epoch only.
import { ProtocolError } from "../protocol/errors.ts";
import { TokenError, type TokenSigner } from "../protocol/tokens.ts";

export class Cursors {
  constructor(
    private readonly signer: TokenSigner,
    /** The oldest position a replay may start from (records after it are retained for replay). */
    private readonly floor: () => number,
    private readonly last: () => number,
  ) {}

  encode(seq: number): string {
    return this.signer.sign("cur", { p: String(seq) });
  }

  /** The cursor before the oldest replayable record. */
  origin(): string {
    return this.encode(this.floor());
  }

  /** The position a cursor stands for, or the protocol error that tells the client what to do. */
  decode(token: string): number {
    let position: string;
    try {
      position = this.signer.verify("cur", token).p!;
    } catch (error) {
      if (!(error instanceof TokenError)) throw error;
      if (error.problem === "wrong_session") throw new ProtocolError("cursor_wrong_session", undefined, "the cursor belongs to another session; fetch GET /sync for this session's cursor");
      if (error.problem === "wrong_epoch") throw new ProtocolError("epoch_mismatch", undefined, "the cursor belongs to an earlier daemon epoch; fetch GET /sync and replay from its cursor");
      throw new ProtocolError("invalid_cursor", undefined, "the cursor is not one this daemon issued; fetch GET /sync for a cursor");
    }
    if (!/^(0|[1-9][0-9]{0,15})$/.test(position ?? "")) throw new ProtocolError("invalid_cursor", undefined, "the cursor is not one this daemon issued");
    const seq = Number(position);
    if (seq > this.last()) throw new ProtocolError("invalid_cursor", undefined, "the cursor points past the journal");
    if (seq < this.floor()) throw new ProtocolError("cursor_too_old", undefined, "the cursor is older than the retained journal; fetch GET /sync and replay from its cursor");
    return seq;
  }
}
