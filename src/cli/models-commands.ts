// `agent models`: the models of the built-in catalog, which are usable now and why the others are not;
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
      name: "refresh",
      summary: "Download the current models.dev data into the local cache (the only network use of the catalog)",
      flags: [
        { name: "url", type: "string", valueName: "URL", summary: "Fetch api.json from URL instead of https://models.dev/api.json" },
        { name: "json", type: "boolean", summary: "Print one JSON object for scripts" },
      ],
      run: async (args, io) => (await import("./models-run.ts")).modelsRefreshRun(args, io),
    },
  ],
  examples: ["agent models", "agent models --provider openrouter", "agent models --json", "agent models refresh"],
  run: async (args, io) => (await import("./models-run.ts")).modelsRun(args, io),
};
