// Directories that may not be registered as projects. A session's daemon works in its project and its
// permission rules treat the project as the place where tools may act without asking, so a project must be
// a project: not the filesystem root or a system directory, not a whole home or a directory that holds
// other users' or services' data, and never a directory that holds (or sits inside) the gateway's own
// secrets. The rules are listed in docs/gateway-sessions.md ("Which directories can be projects").
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";

/** System trees: the directory and everything under it, except below the TREE_EXCEPTIONS. */
const SYSTEM_TREES = ["/etc", "/boot", "/dev", "/proc", "/sys", "/run", "/bin", "/sbin", "/usr", "/var/log", "/var/cache", "/var/spool", "/var/mail", "/var/backups", "/var/run", "/var/lock"];
/** Any top-level /lib* (lib, lib32, lib64, libx32). */
const LIB_TREE = /^\/lib[^/]*(\/|$)/;
/** Source trees inside /usr where projects do live (the directories themselves stay refused). */
const TREE_EXCEPTIONS = ["/usr/src", "/usr/local/src"];
/** Directories that hold many users' or services' data: refused themselves, their subdirectories are fine. */
const SHARED_ROOTS = ["/", "/home", "/root", "/tmp", "/var", "/var/lib", "/var/tmp", "/var/www", "/opt", "/srv", "/mnt", "/media"];

export function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === "/" ? "/" : `${dir}/`);
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** What the gateway keeps out of projects: its own files, and the home of the user it runs as. */
export interface ProtectedPaths {
  /** The gateway's data directory (database, pepper, self-signed TLS key, session stores). */
  dataDir: string;
  /** Secret files kept elsewhere (auth.password.pepper_file, tls.key_file) and the daemons' auth profile dir. */
  secrets: string[];
  /** Home directories of the gateway's user ($HOME and the password database's). */
  homes: string[];
}

export function protectedPaths(dataDir: string, secrets: Array<string | null | undefined>, env: Record<string, string | undefined>): ProtectedPaths {
  const homes = [env.HOME, homedir()].filter((h): h is string => !!h).map(canonical);
  return { dataDir: canonical(dataDir), secrets: secrets.filter((s): s is string => !!s).map(canonical), homes: [...new Set(homes)] };
}

/** Why `path` (canonical, absolute) may not be a project, or null when it may. */
export function refusedProjectPath(path: string, protect: ProtectedPaths): string | null {
  if (SHARED_ROOTS.includes(path)) {
    return path === "/" ? "it is the filesystem root" : "it is a system directory that holds other users' or services' data; register a project directory inside it";
  }
  const exception = TREE_EXCEPTIONS.some((dir) => path.startsWith(`${dir}/`));
  if (!exception && (LIB_TREE.test(path) || SYSTEM_TREES.some((dir) => isInside(path, dir)))) return "it is (or is inside) a system directory";
  if (protect.homes.includes(path)) return "it is the home directory of the gateway's user; register a project directory inside it";
  const data = protect.dataDir;
  if (isInside(path, data)) return `it is (or is inside) the gateway's data directory ${data}, which holds its database, pepper and TLS key`;
  if (isInside(data, path)) return `it contains the gateway's data directory ${data}, which holds its database, pepper and TLS key`;
  const secret = protect.secrets.find((s) => isInside(s, path) || isInside(path, s));
  if (secret) return `it contains (or is inside) ${secret}, which the gateway keeps secret`;
  return null;
}
