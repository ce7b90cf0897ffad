// `agent gateway client ...`: OAuth client registrations. A confidential client's secret goes to stderr once.
import { CliError, EXIT, type Io, type ParsedArgs } from "../../util/cli-command.ts";
import { OAuthClientError, OAuthClientStore, type ClientType, type OAuthClientInfo } from "../auth/oauth-clients.ts";
import { cliActor, withAdmin } from "./admin-context.ts";
import { iso, printJson, printTable, wantsJson } from "./format.ts";

const toJson = (c: OAuthClientInfo) => ({ client_id: c.id, name: c.name, client_type: c.clientType, grant_types: c.grantTypes, scopes: c.scopes, token_endpoint_auth_method: c.tokenEndpointAuthMethod, created_at: iso(c.createdAt) });
const list = (v: string | undefined) => (v === undefined ? undefined : v.split(/[\s,]+/).filter(Boolean));

async function admin<T>(args: ParsedArgs, io: Io, work: (store: OAuthClientStore, audit: (a: string, t: string) => void) => T): Promise<T> {
  try {
    return await withAdmin(args, io, async (ctx) => work(new OAuthClientStore(ctx.db, ctx.clock), async (action, target) => await ctx.audit.record({ action, outcome: "success", target, detail: cliActor() })));
  } catch (error) {
    if (error instanceof OAuthClientError) throw new CliError(error.message);
    throw error;
  }
}

export async function register(args: ParsedArgs, io: Io): Promise<number> {
  const type = ((args.flags["client-type"] as string | undefined) ?? "public") as ClientType;
  await admin(args, io, async (store, audit) => {
    const { client, secret } = await store.register(args.positionals[0]!, type, list(args.flags["grant-types"] as string | undefined), list(args.flags.scopes as string | undefined));
    audit("client.register", client.id);
    if (secret) io.err(`Client secret (shown only this once): ${secret}\n`);
    if (wantsJson(args)) printJson(io, toJson(client));
    else io.out(`Registered ${client.clientType} client "${client.name}": ${client.id}\n`);
  });
  return EXIT.ok;
}

export async function listClients(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (store) => {
    const clients = await store.list();
    if (wantsJson(args)) return printJson(io, clients.map(toJson));
    printTable(io, ["CLIENT ID", "NAME", "TYPE", "GRANT TYPES", "SCOPES", "CREATED"], clients.map((c) => [c.id, c.name, c.clientType, c.grantTypes.map((g) => g.replace("urn:ietf:params:oauth:grant-type:", "")).join(","), c.scopes.join(" "), iso(c.createdAt)]), "No OAuth clients.");
  });
  return EXIT.ok;
}

export async function remove(args: ParsedArgs, io: Io): Promise<number> {
  await admin(args, io, async (store, audit) => {
    const { client, revokedTokens } = await store.delete(args.positionals[0]!);
    audit("client.delete", client.id);
    if (wantsJson(args)) printJson(io, { deleted: client.id, revoked_tokens: revokedTokens });
    else io.out(`Deleted client ${client.id} ("${client.name}"); revoked ${revokedTokens} token(s).\n`);
  });
  return EXIT.ok;
}
