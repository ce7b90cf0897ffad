// Target-object checks, separate from scope checks (client-protocol.md, Authentication): a daemon
// principal (`dsc_`, implicit `current_session` authority) may reach only its own session; gateway
// principals reach any session their scope allows.
import { ProtocolError } from "../../protocol/errors.ts";
import type { AuthResult } from "./bearer.ts";

export function requireSessionTarget(auth: AuthResult, sessionId: string): void {
  if (auth.family === "dsc" && auth.sessionId !== sessionId) {
    throw new ProtocolError("forbidden", 403, "a daemon credential may only reach its own session");
  }
}
