// How every request of the provider layer names itself: the agent and its version, not the runtime's
// `Bun/x.y` (providers' logs and gateways' allow-lists see who called).
import { VERSION } from "../version.ts";

export const USER_AGENT = `agent/${VERSION}`;
