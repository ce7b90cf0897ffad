// The gateway config's `database` block and `host_name` (issue 38): what is accepted, and each mistake
// refused with the file, the field and what is allowed: a password in the URL, password_env or
// password_file without a URL, both at once, a variable that is not set, a password file that is missing
// or empty. The password itself never appears in a message.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GatewayConfigError, parseGatewayConfig } from "../../src/gateway/config/load.ts";
import { databasePassword } from "../../src/gateway/config/database-password.ts";
import { tempDir } from "./helpers.ts";

const FILE = "/etc/gw/gateway-config.yaml";
const parse = (yaml: string) => parseGatewayConfig(yaml, FILE, "buildhost");
const fails = (yaml: string) => {
  try {
    parse(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the config to be rejected");
};
const passwordFails = (yaml: string, env: Record<string, string | undefined> = {}) => {
  try {
    databasePassword(parse(yaml), env);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the password to be refused");
};

describe("gateway config: database", () => {
  test("defaults: SQLite (no url), a pool of 10, the machine's host name", () => {
    const c = parse("auth: {}\n");
    expect(c.database).toEqual({ url: undefined, password_env: undefined, password_file: undefined, pool_size: 10 });
    expect(c.host_name).toBe("buildhost");
    expect(databasePassword(c, {})).toBeUndefined();
  });

  test("url with password_env or password_file (relative to the config file); pool_size and host_name", () => {
    const c = parse("host_name: replica-1\ndatabase: {url: postgres://agent@db.internal:5432/gw, password_env: GW_DB_PASSWORD, pool_size: 20}\nauth: {}\n");
    expect(c.database).toEqual({ url: "postgres://agent@db.internal:5432/gw", password_env: "GW_DB_PASSWORD", password_file: undefined, pool_size: 20 });
    expect(c.host_name).toBe("replica-1");
    expect(databasePassword(c, { GW_DB_PASSWORD: "s3cret" })).toBe("s3cret");
    expect(parse("database: {url: postgresql://agent@db/gw, password_file: secrets/db}\nauth: {}\n").database.password_file).toBe("/etc/gw/secrets/db");
  });

  test("a password in the URL is refused naming the field, without echoing the password", () => {
    const message = fails("database: {url: postgres://agent:hunter2@db.internal/gw}\nauth: {}\n");
    expect(message).toContain("database.url");
    expect(message).toContain("a password in the URL is not allowed: name it with database.password_env or database.password_file");
    expect(message).toBe(`${FILE}:1: database.url: "postgres://agent:***@db.internal/gw": a password in the URL is not allowed: name it with database.password_env or database.password_file`);
    // auth.external_url likewise.
    expect(fails("auth: {external_url: 'https://ops:hunter2@gw.example.com'}\n")).toBe(`${FILE}:1: auth.external_url: "https://ops:***@gw.example.com/": credentials in the URL are not allowed`);
  });

  test("a URL that is not postgres:// and a bad variable name are refused with what is allowed", () => {
    expect(fails("database: {url: mysql://agent@db/gw}\nauth: {}\n")).toContain("database.url: \"mysql://agent@db/gw\": expected a postgres:// URL");
    expect(fails("database: {url: postgres://agent@db/gw, password_env: 'GW-DB'}\nauth: {}\n")).toContain("database.password_env: \"GW-DB\": expected an environment variable name");
    expect(fails("database: {url: postgres://agent@db/gw, pool_size: 0}\nauth: {}\n")).toContain("database.pool_size: 0 is out of range; allowed 1..200");
    expect(fails("host_name: 'two words'\nauth: {}\n")).toContain("host_name: \"two words\": expected a host name");
  });

  test("password_env or password_file without url, and both at once, are refused", () => {
    expect(fails("database: {password_env: GW_DB_PASSWORD}\nauth: {}\n")).toBe(`${FILE}: database.password_env and database.password_file need database.url (SQLite has no password)`);
    expect(fails("database: {password_file: /run/secrets/db}\nauth: {}\n")).toBe(`${FILE}: database.password_env and database.password_file need database.url (SQLite has no password)`);
    expect(fails("database: {url: postgres://agent@db/gw, password_env: GW_DB_PASSWORD, password_file: /run/secrets/db}\nauth: {}\n")).toBe(
      `${FILE}: set one of database.password_env and database.password_file, not both`,
    );
  });

  test("password_env naming a variable that is unset or empty; a password file missing or empty", () => {
    const yaml = "database: {url: postgres://agent@db/gw, password_env: GW_DB_PASSWORD}\nauth: {}\n";
    expect(passwordFails(yaml)).toBe(`${FILE}: database.password_env names GW_DB_PASSWORD, which is not set`);
    expect(passwordFails(yaml, { GW_DB_PASSWORD: "" })).toBe(`${FILE}: database.password_env names GW_DB_PASSWORD, which is not set`);
    const dir = tempDir();
    const missing = join(dir, "nope");
    expect(passwordFails(`database: {url: postgres://agent@db/gw, password_file: ${missing}}\nauth: {}\n`)).toBe(`${FILE}: database.password_file ${missing} cannot be read: ENOENT`);
    const empty = join(dir, "empty");
    writeFileSync(empty, "\n");
    expect(passwordFails(`database: {url: postgres://agent@db/gw, password_file: ${empty}}\nauth: {}\n`)).toBe(`${FILE}: database.password_file ${empty} is empty`);
    const good = join(dir, "good");
    writeFileSync(good, "s3cret\nignored\n");
    expect(databasePassword(parse(`database: {url: postgres://agent@db/gw, password_file: ${good}}\nauth: {}\n`), {})).toBe("s3cret");
  });
});
