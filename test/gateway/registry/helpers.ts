// A started gateway with a `machine` token, and a JSON caller for the registry routes.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveTls, type TlsMaterial } from "../../../src/gateway/net/tls.ts";
import { startTestGateway, tempDir, type TestGateway } from "../helpers.ts";

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
  const token = (await gw.ctx.pats.create((await gw.ctx.principals.create("admin")).id, "registry tests")).token;
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

/** A self-signed pair for localhost (and 127.0.0.1, ::1), written to files a gateway config can name. */
export async function selfSignedFiles(now = new Date()): Promise<{ cert: string; key: string; material: TlsMaterial }> {
  const dir = tempDir("gw-cert-");
  const material = (await resolveTls({ listen: { address: "0.0.0.0" }, tls: {} } as never, dir, now, "localhost"))!;
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  writeFileSync(cert, material.cert);
  writeFileSync(key, material.key, { mode: 0o600 });
  return { cert, key, material };
}

export async function startTlsGateway(files: { cert: string; key: string }): Promise<TestGateway> {
  return startTestGateway(`tls:\n  cert_file: ${files.cert}\n  key_file: ${files.key}\n`);
}
