// The release script's header check on hand-made headers: a binary for the wrong CPU, format or libc, or
// an unsigned macOS binary, is named as such (the full release test sees only correct builds).
import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { headerProblem, readHeader, TARGETS } from "../../scripts/release-targets.ts";

const dir = mkdtempSync(join(tmpdir(), "agent-headers-"));
const target = (key: string) => TARGETS.find((t) => t.key === key)!;

function file(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** An ELF64 header with one PT_INTERP program header naming `interpreter`. */
function elf(machine: number, interpreter: string): Buffer {
  const b = Buffer.alloc(256);
  b.writeUInt32BE(0x7f454c46, 0);
  b.writeUInt16LE(machine, 18);
  b.writeBigUInt64LE(64n, 32); // e_phoff
  b.writeUInt16LE(56, 54); // e_phentsize
  b.writeUInt16LE(1, 56); // e_phnum
  b.writeUInt32LE(3, 64); // PT_INTERP
  b.writeBigUInt64LE(160n, 64 + 8); // p_offset
  b.writeBigUInt64LE(BigInt(interpreter.length + 1), 64 + 32); // p_filesz
  b.write(interpreter, 160, "latin1");
  return b;
}

function macho(cputype: number, signed: boolean): Buffer {
  const b = Buffer.alloc(64);
  b.writeUInt32LE(0xfeedfacf, 0);
  b.writeUInt32LE(cputype, 4);
  b.writeUInt32LE(1, 16); // ncmds
  b.writeUInt32LE(16, 20); // sizeofcmds
  b.writeUInt32LE(signed ? 0x1d : 0x2, 32);
  b.writeUInt32LE(16, 36);
  return b;
}

function pe(machine: number): Buffer {
  const b = Buffer.alloc(128);
  b.write("MZ", 0, "latin1");
  b.writeUInt32LE(64, 0x3c);
  b.write("PE\0\0", 64, "latin1");
  b.writeUInt16LE(machine, 68);
  return b;
}

test("each format, CPU and loader is read from the header", () => {
  expect(readHeader(file("a", elf(0xb7, "/lib/ld-linux-aarch64.so.1")))).toEqual({ format: "elf", cpu: "arm64", interpreter: "/lib/ld-linux-aarch64.so.1" });
  expect(readHeader(file("b", macho(0x0100000c, true)))).toEqual({ format: "macho", cpu: "arm64", signed: true });
  expect(readHeader(file("c", pe(0x8664)))).toEqual({ format: "pe", cpu: "x64" });
  expect(readHeader(file("d", Buffer.from("#!/bin/sh\necho agent 1.0.0\n".padEnd(64))))).toEqual({ format: "unknown", cpu: "other" });
});

test("a binary that is not its target's is named with what it is", () => {
  const problem = (key: string, bytes: Buffer) => headerProblem(target(key), readHeader(file(key, bytes)));
  expect(problem("linux-arm64", elf(0xb7, "/lib/ld-linux-aarch64.so.1"))).toBeNull();
  expect(problem("linux-x64", elf(0xb7, "/lib/ld-linux-aarch64.so.1"))).toBe("is built for arm64, not x64");
  expect(problem("linux-x64-musl", elf(0x3e, "/lib64/ld-linux-x86-64.so.2"))).toBe("loads /lib64/ld-linux-x86-64.so.2, not a musl loader");
  expect(problem("linux-x64", elf(0x3e, "/lib/ld-musl-x86_64.so.1"))).toBe("loads /lib/ld-musl-x86_64.so.1, not a glibc loader");
  expect(problem("darwin-arm64", macho(0x0100000c, false))).toBe("has no code signature");
  expect(problem("darwin-x64", macho(0x0100000c, true))).toBe("is built for arm64, not x64");
  expect(problem("win32-x64", elf(0x3e, "/lib64/ld-linux-x86-64.so.2"))).toBe("is an ELF file, not PE");
  expect(problem("win32-x64", pe(0xaa64))).toBe("is built for arm64, not x64");
});
