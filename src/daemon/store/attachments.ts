// Content-addressed attachments (images of prompts and tool results): stored once, read by id.
import { eq } from "drizzle-orm";
import type { SessionDb } from "./open.ts";
import { attachments } from "./schema.ts";

export interface Attachment {
  id: string;
  mediaType: string;
  data: Buffer;
}

export class AttachmentTable {
  constructor(private readonly db: SessionDb) {}

  /** Stores the bytes (once per content) and returns the attachment id. */
  put(mediaType: string, data: Uint8Array, now: number): string {
    const id = `att_${new Bun.CryptoHasher("sha256").update(data).digest("hex").slice(0, 32)}`;
    this.db.insert(attachments).values({ id, mediaType, data: Buffer.from(data), createdAt: now }).onConflictDoNothing().run();
    return id;
  }

  get(id: string): Attachment | null {
    const row = this.db.select().from(attachments).where(eq(attachments.id, id)).get();
    return row ? { id: row.id, mediaType: row.mediaType, data: row.data } : null;
  }
}
