// `agent auth provider login|logout|status`: device logins (auth type device_a / device_b) of model
// providers. The implementation loads lazily; tests build the same tree with injected dependencies.
import type { CommandSpec, FlagSpec, ParsedArgs, Io } from "../util/cli-command.ts";

export interface AuthRunners {
  login(args: ParsedArgs, io: Io): Promise<number>;
  logout(args: ParsedArgs, io: Io): Promise<number>;
  status(args: ParsedArgs, io: Io): Promise<number>;
}

const CONFIG_FLAG: FlagSpec = { name: "config", type: "string", valueName: "FILE", summary: "Use FILE instead of the global config for this run" };
const JSON_FLAG: FlagSpec = { name: "json", type: "boolean", summary: "Print JSON for scripts" };
const PROVIDER_FLAG: FlagSpec = { name: "provider", type: "string", valueName: "NAME", summary: "Provider key under `providers:` in the config" };
const PROFILE_FLAG: FlagSpec = {
  name: "profile",
  type: "string",
  valueName: "NAME",
  summary: "Auth profile to use (default: the provider's auth.profile); letters, digits, '_' and '-'",
};

export function authCommandWith(load: () => Promise<AuthRunners>): CommandSpec {
  return {
    name: "auth",
    summary: "Log in to model providers that use a device login",
    subcommands: [
      {
        name: "provider",
        summary: "Device logins of providers whose auth is device_a or device_b",
        description: `
A provider configured with 'auth: { type: device_a, profile: NAME }' (or device_b) sends the access
token of a stored login. 'login' runs the device flow: it prints a web address and a code, you approve
in a browser, and the tokens are saved to <data root>/auth/providers/<profile>.json (mode 0600).
The daemon refreshes them before they expire. Where to log in is in the same auth block: 'client_id'
(registered for you at the server) and 'issuer' (endpoints from its RFC 8414 metadata) or both
'device_authorization_endpoint' and 'token_endpoint'.`,
        subcommands: [
          {
            name: "login",
            summary: "Log in through the browser (device code) and store the profile",
            flags: [PROVIDER_FLAG, PROFILE_FLAG, CONFIG_FLAG, JSON_FLAG],
            run: async (a, io) => (await load()).login(a, io),
          },
          {
            name: "logout",
            summary: "Delete the stored login of a provider (or of --profile)",
            flags: [PROVIDER_FLAG, PROFILE_FLAG, CONFIG_FLAG, JSON_FLAG],
            run: async (a, io) => (await load()).logout(a, io),
          },
          {
            name: "status",
            summary: "Show each device-login provider's profile and whether it is logged in (exit 1 if one is not)",
            flags: [PROVIDER_FLAG, CONFIG_FLAG, JSON_FLAG],
            run: async (a, io) => (await load()).status(a, io),
          },
        ],
        examples: ["agent auth provider login --provider coding-plan", "agent auth provider status --json", "agent auth provider logout --provider coding-plan"],
      },
    ],
  };
}

export const authCommand: CommandSpec = authCommandWith(async () => (await import("./auth-run.ts")).authRunners());
