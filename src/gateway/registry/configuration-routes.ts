// /api/v1/configurations (gateway.md, Endpoints: Configurations). The edge has already checked the
// `machine` scope; every route checks the name before touching the database or the disk.
import { t } from "elysia";
import { elysiaApp } from "../../util/elysia-app.ts";
import { ConfigurationStore, type RegistryDeps } from "./configurations.ts";
import { assertConfigName } from "./names.ts";
import { auditRegistry, type RegistryAuditDeps } from "./audit.ts";
import {
  ConfigurationDetailResponse,
  ConfigurationNameParams,
  ConfigurationResponse,
  CreateConfigurationBody,
  RegistryError,
  UpdateConfigurationBody,
} from "./schemas.ts";

const BASE = "/api/v1/configurations";
const tags = ["configurations"];

export function configurationRoutes(ctx: RegistryDeps & RegistryAuditDeps) {
  const store = new ConfigurationStore(ctx);
  return elysiaApp({ name: "gateway-configurations" })
    .get(BASE, async () => await store.list(), {
      response: { 200: t.Array(ConfigurationResponse) },
      detail: { summary: "List configurations", description: "Also removes this gateway's files of configurations deleted through another replica, and stores in the database the content of rows from before it held it whose files are on this gateway.", tags },
    })
    .post(
      BASE,
      async ({ body, request, set }) => {
        const created = await store.create(body);
        await auditRegistry(ctx, request, "configuration.create", created.name);
        set.status = 201;
        return created;
      },
      {
        body: CreateConfigurationBody,
        response: { 201: ConfigurationResponse, 409: RegistryError, 422: RegistryError, 503: RegistryError },
        detail: { summary: "Register a configuration", description: "Content is parsed as config_format and checked against the app config schema. 409 when the name exists; 422 for an invalid name, content or format; 503 when the files cannot be written (nothing is stored).", tags },
      },
    )
    .get(BASE + "/:name", async ({ params }) => await store.get(assertConfigName(params.name)), {
      params: ConfigurationNameParams,
      response: { 200: ConfigurationDetailResponse, 404: RegistryError, 422: RegistryError, 503: RegistryError },
      detail: { summary: "A configuration with its raw content", description: "The content comes from the database (the same on every replica sharing it); this gateway's files are rewritten from it when they differ. 503 for a configuration stored before the database held content whose files are on another gateway: read it there once.", tags },
    })
    .put(
      BASE + "/:name",
      async ({ params, body, request }) => {
        const updated = await store.update(assertConfigName(params.name), body);
        await auditRegistry(ctx, request, "configuration.update", updated.name);
        return updated;
      },
      {
        params: ConfigurationNameParams,
        body: UpdateConfigurationBody,
        response: { 200: ConfigurationResponse, 404: RegistryError, 422: RegistryError, 503: RegistryError },
        detail: { summary: "Update a configuration", description: "Partial update. A format change needs config_content in the new format: the new file is written, the row updated, then the old file removed. An empty pre_run_script deletes the script.", tags },
      },
    )
    .delete(
      BASE + "/:name",
      async ({ params, request }) => {
        const name = assertConfigName(params.name);
        await store.delete(name);
        await auditRegistry(ctx, request, "configuration.delete", name);
        return new Response(null, { status: 204 });
      },
      {
        params: ConfigurationNameParams,
        response: { 404: RegistryError, 409: RegistryError, 422: RegistryError },
        detail: { summary: "Remove a configuration", description: "204. The row goes first, then the directory (best effort); other replicas remove their copy at their next read or list of it. 409 while projects are bound to it.", tags },
      },
    );
}
