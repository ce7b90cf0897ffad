// Small readers shared by the rule tables.

/** A Messages-dialect message's content as blocks (a plain string is one text block). */
export function contentBlocks(message: any): any[] {
  if (Array.isArray(message?.content)) return message.content;
  return typeof message?.content === "string" ? [{ type: "text", text: message.content }] : [];
}
