// On-disk layout versions of a session dir. Layout 1 (no layout file): the store is `session.sqlite` at
// the top of the dir. Layout 2: `layout.json` names the layout, and the store with its WAL/SHM files
// lives in `store/` (0700), apart from the credential, daemon.json and logs. The store moved on purpose:
// a layout-1 binary does not know `layout.json`, so the only way it can be kept from writing into a
// layout it does not understand is to find no store where it looks.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../../util/atomic-write.ts";
import { LayoutTooNewError } from "../../../util/file-format-version.ts";

/** The newest layout this binary reads and writes. */
export const LAYOUT_VERSION = 2;
export const LAYOUT_FILE = "layout.json";
/** The store of layout 1, at the top of the session dir. */
export const LEGACY_STORE_FILE = "session.sqlite";
/** The store of layout 2, relative to the session dir. */
export const STORE_FILE = join("store", "session.sqlite");

export interface LayoutFile {
  layout: number;
  session_id?: string;
  /** Set on a migrated session: the layout it was migrated from, and when. */
  migrated_from?: number;
  migrated_at?: string;
}

/** Refuses a session dir of a layout newer than this binary's. */
export function checkLayoutSupported(dir: string, layout: number): void {
  if (layout > LAYOUT_VERSION) throw new LayoutTooNewError("this session", "layout", layout, LAYOUT_VERSION, dir);
}

/** The layout of a session dir: its layout file's, 1 for a top-level store, null for no session. */
export function detectLayout(dir: string): number | null {
  const file = join(dir, LAYOUT_FILE);
  if (existsSync(file)) return readLayoutFile(dir).layout;
  if (existsSync(join(dir, LEGACY_STORE_FILE))) return 1;
  return null;
}

export function readLayoutFile(dir: string): LayoutFile {
  const file = join(dir, LAYOUT_FILE);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new Error(`${file} is not valid JSON (expected {"layout": ${LAYOUT_VERSION}, ...}); the session dir is damaged`);
  }
  const layout = (doc as LayoutFile | null)?.layout;
  if (!Number.isSafeInteger(layout) || (layout as number) < 2) throw new Error(`${file}: 'layout' must be an integer of at least 2 (got ${JSON.stringify(layout)})`);
  return doc as LayoutFile;
}

export function writeLayoutFile(dir: string, file: LayoutFile): void {
  writeFileAtomic(join(dir, LAYOUT_FILE), `${JSON.stringify(file, null, 2)}\n`, 0o600);
}
