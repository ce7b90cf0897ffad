// The plain printer (`agent new`/`continue` without a terminal) says what an /undo or /rewind did.
import { describe, expect, test } from "bun:test";
import { SessionPrinter } from "../../src/cli/session-printer.ts";
import type { SyncRecord } from "../../src/protocol/sync-record.ts";

describe("plain printer: rewound records", () => {
  test("an undo and a rewind of files and conversation each get one line on stderr", () => {
    let err = "";
    const printer = new SessionPrinter({ out: () => {}, err: (t) => (err += t), isTty: false, cwd: "/", env: {}, stdin: async () => "" });
    const base = { version: 1 as const, at: 0, prompt_id: "msg_1", turn_ids: ["turn_1"], kept: [] as string[], type: "rewound" as const };
    // SyncRecord's composite variants are too wide for TypeScript to check an object literal against.
    const records = [
      { ...base, seq: "1", action: "undo", mode: "code", restored: ["/p/a.txt", "/p/b.txt"] },
      { ...base, seq: "2", action: "rewind", mode: "both", restored: ["/p/a.txt"], kept: ["/p/b.txt"] },
    ] as unknown as SyncRecord[];
    printer.print(records);
    expect(err).toBe(
      "(undid the last turn's file changes: 2 files restored)\n" +
        "(rewound to before a prompt: 1 file restored, 1 kept as changed since; the model no longer sees the conversation from that prompt on)\n",
    );
  });
});
