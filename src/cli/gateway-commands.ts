// `agent gateway ...`: the gateway server and its administration commands. Implementations load lazily.
import type { CommandSpec, FlagSpec } from "../util/cli-command.ts";

const CONFIG: FlagSpec = { name: "config", type: "string", valueName: "FILE", summary: "Gateway config file (default $XDG_CONFIG_HOME/agent-gateway/gateway-config.yaml)" };
const JSON_FLAG: FlagSpec = { name: "json", type: "boolean", summary: "Print JSON for scripts instead of a table" };
const common = [CONFIG, JSON_FLAG];
/** `principal set-password` / `remove-password --revoke` (without it, as the spec says, nothing is revoked). */
const revokeFlag: FlagSpec = { name: "revoke", type: "boolean", summary: "Also revoke the principal's browser sessions, OAuth grants (with the clients registered under them) and personal access tokens, as a password change on the dashboard does" };
/** Flags of every (http) command: which running gateway, with which token (src/gateway/admin/http-target.ts). */
export const HTTP_TARGET: FlagSpec[] = [
  { name: "gateway-url", type: "string", valueName: "URL", summary: "Gateway base URL, e.g. https://build-host:19870 (default $AGENT_GATEWAY_URL)" },
  { name: "gateway-token", type: "string", valueName: "TOKEN", summary: "Token with the machine scope (default $AGENT_GATEWAY_TOKEN, which keeps it out of process lists)" },
  JSON_FLAG,
];

const principal = () => import("../gateway/admin/principal-cli.ts");
const token = () => import("../gateway/admin/token-cli.ts");
const hostToken = () => import("../gateway/admin/host-token-cli.ts");
const client = () => import("../gateway/admin/client-cli.ts");
const configs = () => import("../gateway/admin/config-cli.ts");
const projects = () => import("../gateway/admin/project-cli.ts");
const sessions = () => import("../gateway/sessions/cli.ts");
const SESSION_ID = { name: "id", summary: "session id (ses_...)", required: true };

export const gatewayCommand: CommandSpec = {
  name: "gateway",
  summary: "Run the remote session gateway and administer its principals, tokens, OAuth clients, audit log, configurations, projects and database",
  examples: ["AGENT_HOST_TOKEN=hst_... agent gateway host --join https://gw.example:19870   # join this machine to a gateway as a host"],
  subcommands: [
    {
      name: "serve",
      summary: "Start the gateway server in the foreground (SIGTERM stops it gracefully)",
      flags: [CONFIG],
      run: async (args, io) => (await import("../gateway/admin/serve-cli.ts")).runServe(args, io),
    },
    {
      name: "host",
      summary: "Join this machine to a gateway as a host: supervise its daemons, dialing out to every front (no inbound port, no database access)",
      description:
        "Runs in the foreground until SIGTERM; the daemons keep running when it stops and the next start re-adopts them.\nThe host token (agent gateway host-token create --host NAME, on a front's machine) comes from $AGENT_HOST_TOKEN or --token-file; --token also works but shows the token to anyone who can list processes (ps).\nhttps fronts are verified with the system CAs; a self-signed front needs --tls-fingerprint (printed by agent gateway serve).",
      flags: [
        { name: "join", type: "string", valueName: "URL", repeatable: true, summary: "A gateway front's base URL (https://, or http:// to loopback); repeat for each front replica" },
        { name: "token-file", type: "string", valueName: "FILE", summary: "File holding the host token (default $AGENT_HOST_TOKEN)" },
        { name: "token", type: "string", valueName: "TOKEN", summary: "The host token (visible in process lists: prefer $AGENT_HOST_TOKEN or --token-file)" },
        { name: "name", type: "string", valueName: "NAME", summary: "This host's name: the one the token was created for (default: the machine's hostname)" },
        { name: "data-dir", type: "string", valueName: "DIR", summary: "Where session directories live (default $XDG_DATA_HOME/agent-host)" },
        { name: "tls-fingerprint", type: "string", valueName: "SHA256:..", repeatable: true, summary: "Accept a front's self-signed certificate with this SHA-256 fingerprint" },
      ],
      examples: ["AGENT_HOST_TOKEN=hst_... agent gateway host --join https://gw-1.example:19870 --join https://gw-2.example:19870 --name build-7"],
      run: async (a, io) => (await import("../gateway/hosts/agent/cli.ts")).runHost(a, io),
    },
    {
      name: "principal",
      summary: "Manage principals and their password and PAM credentials (writes the database directly)",
      subcommands: [
        { name: "create", summary: "Create a principal", positionals: [{ name: "username", summary: "login name", required: true }], flags: [...common, { name: "display-name", type: "string", valueName: "TEXT", summary: "Human-friendly name" }], run: async (a, io) => (await principal()).create(a, io) },
        { name: "list", summary: "List principals", flags: common, run: async (a, io) => (await principal()).list(a, io) },
        { name: "show", summary: "Show one principal", positionals: [{ name: "id-or-username", summary: "principal id or username", required: true }], flags: common, run: async (a, io) => (await principal()).show(a, io) },
        { name: "rename", summary: "Change a principal's display name", positionals: [{ name: "id", summary: "principal id or username", required: true }], flags: [...common, { name: "display-name", type: "string", valueName: "TEXT", summary: "New display name (empty clears it)" }], run: async (a, io) => (await principal()).rename(a, io) },
        { name: "delete", summary: "Delete a principal with its credentials, tokens and sessions", positionals: [{ name: "id", summary: "principal id or username", required: true }], flags: common, run: async (a, io) => (await principal()).remove(a, io) },
        { name: "set-password", summary: "Set a password (prompted; never an argument)", positionals: [{ name: "id", summary: "principal id or username", required: true }], flags: [...common, { name: "password-stdin", type: "boolean", summary: "Read the password from the first line of stdin" }, revokeFlag], run: async (a, io) => (await principal()).setPassword(a, io) },
        { name: "remove-password", summary: "Remove the password credential", positionals: [{ name: "id", summary: "principal id or username", required: true }], flags: [...common, revokeFlag], run: async (a, io) => (await principal()).removePassword(a, io) },
        { name: "set-pam", summary: "Bind the principal to a system user checked through PAM", positionals: [{ name: "id", summary: "principal id or username", required: true }], flags: [...common, { name: "service", type: "string", valueName: "NAME", summary: "PAM service under /etc/pam.d (default: auth.pam.service)" }, { name: "system-user", type: "string", valueName: "NAME", summary: "System account name" }], run: async (a, io) => (await principal()).setPam(a, io) },
        { name: "remove-pam", summary: "Remove the PAM binding", positionals: [{ name: "id", summary: "principal id or username", required: true }], flags: common, run: async (a, io) => (await principal()).removePam(a, io) },
      ],
    },
    {
      name: "token",
      summary: "Manage personal access tokens (writes the database directly)",
      subcommands: [
        { name: "create", summary: "Create a token and print it once to stdout", positionals: [{ name: "principal_id", summary: "principal id or username", required: true }], flags: [...common, { name: "label", type: "string", valueName: "TEXT", summary: "What the token is for" }], run: async (a, io) => (await token()).create(a, io) },
        { name: "list", summary: "List a principal's live tokens (no secrets)", positionals: [{ name: "principal_id", summary: "principal id or username", required: true }], flags: common, run: async (a, io) => (await token()).list(a, io) },
        { name: "revoke", summary: "Revoke a token", positionals: [{ name: "token_id", summary: "token id (tok_...)", required: true }], flags: common, run: async (a, io) => (await token()).revoke(a, io) },
      ],
    },
    {
      name: "host-token",
      summary: "Manage host credentials (hst_...) with which host agents join (writes the database directly)",
      subcommands: [
        { name: "create", summary: "Create a host token and print it once to stdout", flags: [...common, { name: "host", type: "string", valueName: "NAME", summary: "The host name the token is for (the only name its connection may claim)" }, { name: "label", type: "string", valueName: "TEXT", summary: "What the token is for" }], run: async (a, io) => (await hostToken()).create(a, io) },
        { name: "list", summary: "List host tokens, revoked ones included (no secrets)", flags: common, run: async (a, io) => (await hostToken()).list(a, io) },
        { name: "revoke", summary: "Revoke a host token; the host's connections made with it close", positionals: [{ name: "id", summary: "host token id (hcr_...)", required: true }], flags: common, run: async (a, io) => (await hostToken()).revoke(a, io) },
      ],
    },
    {
      name: "client",
      summary: "Manage OAuth client registrations (writes the database directly)",
      subcommands: [
        {
          name: "register",
          summary: "Register a client; a confidential client's secret is printed to stderr once",
          positionals: [{ name: "name", summary: "client name", required: true }],
          flags: [
            ...common,
            { name: "client-type", type: "string", valueName: "TYPE", choices: ["public", "confidential"], summary: "public (device flow, default) or confidential (client credentials)" },
            { name: "grant-types", type: "string", valueName: "LIST", summary: "Comma-separated: device_code, refresh_token, client_credentials" },
            { name: "scopes", type: "string", valueName: "LIST", summary: "Comma-separated registered scopes (default: machine,project)" },
          ],
          run: async (a, io) => (await client()).register(a, io),
        },
        { name: "list", summary: "List registered clients", flags: common, run: async (a, io) => (await client()).listClients(a, io) },
        { name: "delete", summary: "Revoke a client's tokens and delete it", positionals: [{ name: "client-id", summary: "client id (cli_...)", required: true }], flags: common, run: async (a, io) => (await client()).remove(a, io) },
      ],
    },
    {
      name: "config",
      summary: "Manage the configurations registered on a running gateway (http)",
      subcommands: [
        {
          name: "register",
          summary: "Register a config file under a name",
          positionals: [{ name: "name", summary: "lowercase letters, digits and hyphens", required: true }],
          flags: [...HTTP_TARGET, { name: "file", type: "string", valueName: "PATH", summary: "The config file (.yaml, .yml or .toml)" }, { name: "format", type: "string", valueName: "FORMAT", choices: ["yaml", "toml"], summary: "Format when the extension does not tell" }, { name: "pre-run", type: "string", valueName: "PATH", summary: "Shell script run before each session's daemon starts" }],
          run: async (a, io) => (await configs()).register(a, io),
        },
        { name: "list", summary: "List configurations", flags: HTTP_TARGET, run: async (a, io) => (await configs()).list(a, io) },
        { name: "show", summary: "Show a configuration with its content", positionals: [{ name: "name", summary: "configuration name", required: true }], flags: HTTP_TARGET, run: async (a, io) => (await configs()).show(a, io) },
        { name: "remove", summary: "Remove a configuration (refused while projects use it)", positionals: [{ name: "name", summary: "configuration name", required: true }], flags: HTTP_TARGET, run: async (a, io) => (await configs()).remove(a, io) },
      ],
    },
    {
      name: "project",
      summary: "Manage the projects registered on a running gateway (http)",
      subcommands: [
        { name: "register", summary: "Register a directory on the gateway machine as a project", positionals: [{ name: "path", summary: "absolute path on the gateway machine", required: true }], flags: [...HTTP_TARGET, { name: "config-name", type: "string", valueName: "NAME", summary: "The registered configuration its sessions use" }], run: async (a, io) => (await projects()).register(a, io) },
        { name: "list", summary: "List projects with their hook status", flags: HTTP_TARGET, run: async (a, io) => (await projects()).list(a, io) },
        { name: "remove", summary: "Unregister a project", positionals: [{ name: "id", summary: "project id (8 hex characters)", required: true }], flags: HTTP_TARGET, run: async (a, io) => (await projects()).remove(a, io) },
      ],
    },
    {
      name: "session",
      summary: "Start, stop, resume and remove sessions (daemons) on a running gateway (http)",
      subcommands: [
        { name: "list", summary: "List sessions with their state", flags: HTTP_TARGET, run: async (a, io) => (await sessions()).list(a, io) },
        {
          name: "create",
          summary: "Start a session for a registered project",
          positionals: [{ name: "project-id", summary: "project id (8 hex characters)", required: true }],
          flags: [...HTTP_TARGET, { name: "mode", type: "string", valueName: "MODE", choices: ["project_direct", "worktree_backed"], summary: "project_direct (default: in the project dir) or worktree_backed (in a new git worktree)" }, { name: "wait", type: "boolean", summary: "Wait until the daemon runs (exit 0) or failed (exit 1)" }],
          run: async (a, io) => (await sessions()).create(a, io),
        },
        { name: "stop", summary: "Stop a running session (it stays resumable)", positionals: [SESSION_ID], flags: HTTP_TARGET, run: async (a, io) => (await sessions()).stop(a, io) },
        { name: "resume", summary: "Resume a stopped or failed session with a fresh daemon", positionals: [SESSION_ID], flags: HTTP_TARGET, run: async (a, io) => (await sessions()).resume(a, io) },
        { name: "rm", summary: "Delete a session (stops its daemon, removes its worktree)", positionals: [SESSION_ID], flags: HTTP_TARGET, run: async (a, io) => (await sessions()).remove(a, io) },
      ],
    },
    {
      name: "audit",
      summary: "Read the audit log",
      subcommands: [
        {
          name: "list",
          summary: "List audit events, newest first",
          flags: [
            ...common,
            { name: "principal", type: "string", valueName: "ID", summary: "Only events of this principal (id or username)" },
            { name: "since", type: "string", valueName: "RFC3339", summary: "Only events at or after this time" },
            { name: "limit", type: "string", valueName: "N", summary: "At most N events (default 100)" },
          ],
          run: async (a, io) => (await import("../gateway/admin/audit-cli.ts")).list(a, io),
        },
      ],
    },
    {
      name: "db",
      summary: "Move the gateway's database from SQLite to PostgreSQL; adopt a new pepper",
      subcommands: [
        {
          name: "export",
          summary: "Write every table of the SQLite database to a JSON file (mode 0600: it holds password and token hashes)",
          flags: [...common, { name: "output", type: "string", valueName: "FILE", summary: "The export file to write" }],
          run: async (a, io) => (await import("../gateway/admin/db-cli.ts")).exportDb(a, io),
        },
        {
          name: "import",
          summary: "Write an export into a PostgreSQL database in one transaction (migrations first; a database holding gateway rows is refused without --replace)",
          positionals: [{ name: "file", summary: "an export written by `agent gateway db export`", required: true }],
          flags: [
            ...common,
            { name: "database-url", type: "string", valueName: "URL", summary: "postgres://user@host:5432/database, without the password (default: the config's database.url)" },
            { name: "password-file", type: "string", valueName: "FILE", summary: "A file holding the database password (default $AGENT_GATEWAY_DATABASE_PASSWORD, else the config's database.password_env / password_file)" },
            { name: "replace", type: "boolean", summary: "Delete the gateway data the target holds before importing (same transaction)" },
          ],
          run: async (a, io) => (await import("../gateway/admin/db-cli.ts")).importDb(a, io),
        },
        {
          name: "adopt-pepper",
          summary: "Make the database accept this host's pepper when the one it was set up with is lost for good (stored passwords and daemon credentials stop working)",
          flags: [...common, { name: "yes", type: "boolean", summary: "Confirm: every stored password must be set again" }],
          run: async (a, io) => (await import("../gateway/admin/db-cli.ts")).adoptPepperCmd(a, io),
        },
      ],
    },
  ],
};
