// The release targets and how each binary is checked: run on this machine when it can run here,
// otherwise by its file header (format, CPU, and for Linux the program interpreter, which tells a glibc
// build from a musl one).
import { existsSync, openSync, readSync, closeSync, fstatSync } from "node:fs";

export interface ReleaseTarget {
  /** The asset key of the manifest and the suffix of every file name: Node's `<platform>-<arch>`, plus `-musl`. */
  key: string;
  /** `bun build --compile --target`. */
  bun: string;
  os: "linux" | "darwin" | "win32";
  cpu: "x64" | "arm64";
  libc?: "glibc" | "musl";
  format: "elf" | "macho" | "pe";
}

export const TARGETS: readonly ReleaseTarget[] = [
  { key: "linux-x64", bun: "bun-linux-x64", os: "linux", cpu: "x64", libc: "glibc", format: "elf" },
  { key: "linux-arm64", bun: "bun-linux-arm64", os: "linux", cpu: "arm64", libc: "glibc", format: "elf" },
  { key: "linux-x64-musl", bun: "bun-linux-x64-musl", os: "linux", cpu: "x64", libc: "musl", format: "elf" },
  { key: "linux-arm64-musl", bun: "bun-linux-arm64-musl", os: "linux", cpu: "arm64", libc: "musl", format: "elf" },
  { key: "darwin-x64", bun: "bun-darwin-x64", os: "darwin", cpu: "x64", format: "macho" },
  { key: "darwin-arm64", bun: "bun-darwin-arm64", os: "darwin", cpu: "arm64", format: "macho" },
  { key: "win32-x64", bun: "bun-windows-x64", os: "win32", cpu: "x64", format: "pe" },
];

/** The target this machine is, when it is one (the release builds it first, runs it and profiles it). */
export function hostTarget(): ReleaseTarget | null {
  const musl = process.platform === "linux" && !(process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
  return TARGETS.find((t) => t.os === process.platform && t.cpu === process.arch && (t.os !== "linux" || (t.libc === "musl") === musl)) ?? null;
}

export function fileName(target: ReleaseTarget): string {
  return `agent-${target.key}${target.os === "win32" ? ".exe" : ""}`;
}

export interface Header {
  format: "elf" | "macho" | "pe" | "unknown";
  cpu: "x64" | "arm64" | "other";
  /** ELF only: the program interpreter (`/lib64/ld-linux-x86-64.so.2`, `/lib/ld-musl-aarch64.so.1`). */
  interpreter?: string;
  /** Mach-O only: whether it carries a code signature (macOS on Apple silicon runs no unsigned binary). */
  signed?: boolean;
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  readSync(fd, buf, 0, length, offset);
  return buf;
}

/** Reads a 64-bit little-endian executable's header: ELF, Mach-O or PE. */
export function readHeader(path: string): Header {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const head = readAt(fd, 0, 64);
    if (head.readUInt32BE(0) === 0x7f454c46) {
      // ELF64 LE: e_machine at 18; program headers at e_phoff (32), e_phentsize (54), e_phnum (56).
      const machine = head.readUInt16LE(18);
      const cpu = machine === 0x3e ? "x64" : machine === 0xb7 ? "arm64" : "other";
      const phoff = Number(head.readBigUInt64LE(32));
      const phentsize = head.readUInt16LE(54);
      const phnum = head.readUInt16LE(56);
      let interpreter: string | undefined;
      for (let i = 0; i < phnum && phoff + (i + 1) * phentsize <= size; i++) {
        const ph = readAt(fd, phoff + i * phentsize, phentsize);
        if (ph.readUInt32LE(0) !== 3) continue; // PT_INTERP
        const text = readAt(fd, Number(ph.readBigUInt64LE(8)), Number(ph.readBigUInt64LE(32))).toString("latin1");
        interpreter = text.replace(/\0.*$/s, "");
      }
      return { format: "elf", cpu, ...(interpreter ? { interpreter } : {}) };
    }
    if (head.readUInt32LE(0) === 0xfeedfacf) {
      const cputype = head.readUInt32LE(4);
      // Load commands follow the 32-byte header: ncmds at 16, sizeofcmds at 20; LC_CODE_SIGNATURE is 0x1d.
      const commands = readAt(fd, 32, head.readUInt32LE(20));
      let signed = false;
      for (let i = 0, at = 0; i < head.readUInt32LE(16) && at + 8 <= commands.length; i++, at += commands.readUInt32LE(at + 4)) {
        if (commands.readUInt32LE(at) === 0x1d) signed = true;
        if (commands.readUInt32LE(at + 4) === 0) break;
      }
      return { format: "macho", cpu: cputype === 0x01000007 ? "x64" : cputype === 0x0100000c ? "arm64" : "other", signed };
    }
    if (head.toString("latin1", 0, 2) === "MZ") {
      const pe = head.readUInt32LE(0x3c);
      const sig = readAt(fd, pe, 6);
      if (sig.toString("latin1", 0, 4) !== "PE\0\0") return { format: "unknown", cpu: "other" };
      const machine = sig.readUInt16LE(4);
      return { format: "pe", cpu: machine === 0x8664 ? "x64" : machine === 0xaa64 ? "arm64" : "other" };
    }
    return { format: "unknown", cpu: "other" };
  } finally {
    closeSync(fd);
  }
}

/** What is wrong with the header for the target, or null when it is the target's. */
export function headerProblem(target: ReleaseTarget, header: Header): string | null {
  const names = { elf: "ELF", macho: "Mach-O", pe: "PE" } as const;
  if (header.format === "unknown") return `is not an executable this script knows, not ${names[target.format]}`;
  if (header.format !== target.format) return `is ${header.format === "elf" ? "an" : "a"} ${names[header.format]} file, not ${names[target.format]}`;
  if (header.cpu !== target.cpu) return `is built for ${header.cpu}, not ${target.cpu}`;
  if (target.format === "macho" && !header.signed) return "has no code signature";
  if (target.format === "elf") {
    const musl = header.interpreter?.includes("ld-musl") ?? false;
    if (!header.interpreter) return "has no program interpreter";
    if ((target.libc === "musl") !== musl) return `loads ${header.interpreter}, not a ${target.libc} loader`;
  }
  return null;
}

/** The build info src/version.ts reads, as the minifier writes it into the bundle: proves version, commit and asset without running the binary. */
export function embeddedBuildInfo(version: string, commit: string, target: ReleaseTarget): string {
  return `{version:${JSON.stringify(version)},commit:${JSON.stringify(commit)},asset:${JSON.stringify(target.key)}}`;
}

/**
 * Whether this machine can start the binary: it is this machine's target (same OS, CPU and libc) and its
 * loader is there. A musl build does not run on a glibc system even with Debian's musl package: it also
 * needs musl's libstdc++ and libgcc (Alpine: apk add libstdc++ libgcc).
 */
export function runsHere(target: ReleaseTarget, header: Header): boolean {
  if (target !== hostTarget()) return false;
  return target.os !== "linux" || (header.interpreter !== undefined && existsSync(header.interpreter));
}
