// URL joining rules of the config spec: Messages gets the origin, Chat Completions the versioned base,
// Responses the origin or a base ending in /v1 (never a doubled /v1). The same base lists models.
import type { BaseDialect, UrlStyle } from "./protocols.ts";

export class ProviderUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProviderUrlError";
  }
}

function parseBase(base: string): URL {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ProviderUrlError(`provider url '${base}' is not an absolute URL (expected e.g. https://host or https://host/v1)`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new ProviderUrlError(`provider url '${base}' must use http or https, not ${url.protocol.replace(":", "")}`);
  if (url.hash) throw new ProviderUrlError(`provider url '${base}' must not contain a fragment`);
  return url;
}

function withPath(url: URL, path: string): string {
  const out = new URL(url.href);
  out.pathname = path;
  return out.href;
}

const trimSlash = (p: string) => p.replace(/\/+$/, "");

function endsWithVersion(path: string): boolean {
  return /\/v1$/.test(path);
}

/**
 * `<base>` + the dialect's endpoint (`what` = "stream" for the streaming endpoint, "models" for listing);
 * `style` is the protocol's own rule where it differs from its dialect's (c_responses).
 */
export function providerEndpoint(base: string, dialect: BaseDialect, what: "stream" | "models", style?: UrlStyle): string {
  const url = parseBase(base);
  const path = trimSlash(url.pathname);
  switch (dialect) {
    case "a_messages":
      if (endsWithVersion(path))
        throw new ProviderUrlError(`Messages-dialect url '${base}' must be the origin without the /v1 version (the agent appends /v1/messages)`);
      return withPath(url, `${path}/v1/${what === "stream" ? "messages" : "models"}`);
    case "b_chat_completions":
      return withPath(url, `${path}/${what === "stream" ? "chat/completions" : "models"}`);
    case "b_responses": {
      // The Codex backend serves `<base>/responses` under an unversioned path.
      if (style === "versioned_base") return withPath(url, `${path}/${what === "stream" ? "responses" : "models"}`);
      const versioned = endsWithVersion(path) ? path : `${path}/v1`;
      return withPath(url, `${versioned}/${what === "stream" ? "responses" : "models"}`);
    }
  }
}

/** A cloud-hosted Responses deployment: base ending in /openai/v1 (api-key auth, deployment name as model). */
export function isCloudHostedResponsesBase(base: string): boolean {
  try {
    return /\/openai\/v1$/.test(trimSlash(new URL(base).pathname));
  } catch {
    return false;
  }
}

export function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
