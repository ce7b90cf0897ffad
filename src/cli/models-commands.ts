// `agent models`: the models of the built-in catalog, which are usable now and why the others are not;
// `agent models check`: one minimal real request per model, accepted or the vendor's error;
// `agent models refresh`: a newer copy of the models.dev data, on request.
import type { CommandSpec } from "../util/cli-command.ts";

export const modelsCommand: CommandSpec = {
  name: "models",
  summary: "List the providers and models you can use now, and why the others are not usable",
  description: `
Every provider of the built-in catalog with what it needs: ready (configured, or its key variable set
when no config file names a provider), no key (which variable to set), or a local server that is not
running. Models of usable providers are listed with their context window, output limit, reasoning and
price; --provider lists one provider's models whether usable or not. Model data comes from models.dev
(MIT licence), as shipped in this binary or as last fetched by 'agent models refresh'.`,
  flags: [
    { name: "provider", type: "string", valueName: "NAME", summary: "Only this catalog provider (its models are listed even when not usable)" },
    { name: "json", type: "boolean", summary: "Print one JSON object for scripts" },
  ],
  subcommands: [
    {
      name: "check",
      summary: "Send each model one minimal real request: accepted, or the vendor's error",
      description: `
Sends one real request per model and reports, per model, whether the provider accepted it or the
provider's error (HTTP status and its message): the way to find out in seconds that a model, a key or a
proxy does not work. Without MODEL: the default models (defaults.full, mini, nano) and, for each
configured provider none of them uses, its catalog default model (else its first model). With MODEL
(a model key, optionally with an effort level: name(level)): that model only. Each request is built as
a session builds it (the model's default thinking form and effort level, its headers and auth) and asks
for a one-word answer with the smallest output limit the request allows (1 token; 16 for the Responses
API; above the 1024-token thinking budget where thinking takes a budget), so it costs a few input
tokens. Keys never appear in the output. Exit codes: 0 every model accepted, 1 a check failed (or
nothing could be checked), 2 usage (an unknown model).`,
      positionals: [{ name: "MODEL", summary: "Check only this model: a model key, optionally name(level)" }],
      flags: [{ name: "json", type: "boolean", summary: "Print one JSON object: {models: [{model, provider, accepted, status, error, message, ...}]}" }],
      run: async (args, io) => (await import("./models-check.ts")).modelsCheckRun(args, io),
    },
    {
      name: "refresh",
      summary: "Download the current models.dev data into the local cache (the only network use of the catalog)",
      flags: [
        { name: "url", type: "string", valueName: "URL", summary: "Fetch api.json from URL instead of https://models.dev/api.json" },
        { name: "json", type: "boolean", summary: "Print one JSON object for scripts" },
      ],
      run: async (args, io) => (await import("./models-run.ts")).modelsRefreshRun(args, io),
    },
  ],
  examples: ["agent models", "agent models --provider openrouter", "agent models --json", "agent models check", "agent models check openai/gpt-5.5(high) --json", "agent models refresh"],
  run: async (args, io) => (await import("./models-run.ts")).modelsRun(args, io),
};
