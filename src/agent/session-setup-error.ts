// The one error of session set-up (src/agent/create-session.ts): its message tells the user what to
// change, its code tells the host which kind of problem it is.
export type SessionSetupCode = "config_invalid" | "no_model" | "unknown_model" | "unknown_facet" | "provider";

export class SessionSetupError extends Error {
  constructor(
    readonly code: SessionSetupCode,
    message: string,
  ) {
    super(message);
    this.name = "SessionSetupError";
  }
}
