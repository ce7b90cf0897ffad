// A started gateway with a `machine` token, and a JSON caller for the registry routes.
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestGateway, type TestGateway } from "../helpers.ts";

export interface Reply {
  status: number;
  body: any;
}

export interface RegistryGateway {
  gw: TestGateway;
  token: string;
  call(method: string, path: string, body?: unknown, token?: string): Promise<Reply>;
  /** A fresh directory to register as a project. */
  projectDir(): string;
}

export async function startRegistryGateway(): Promise<RegistryGateway> {
  const gw = await startTestGateway();
  const token = gw.ctx.pats.create(gw.ctx.principals.create("admin").id, "registry tests").token;
  const call = async (method: string, path: string, body?: unknown, as = token): Promise<Reply> => {
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${as}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const root = mkdtempSync(join(tmpdir(), "gw-projects-"));
  let n = 0;
  const projectDir = () => {
    const dir = join(root, `p${++n}`);
    mkdirSync(dir);
    return dir;
  };
  return { gw, token, call, projectDir };
}

export const YAML_CONFIG = "default_permission_matcher: standard\npermissions:\n  secret_words: [hunter2]\n";
export const TOML_CONFIG = 'default_permission_matcher = "standard"\n\n[permissions]\nsecret_words = ["hunter2"]\n';
