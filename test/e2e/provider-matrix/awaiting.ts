// Cells that fail because a product fix has not landed yet, each with the fix it waits for. Such a cell
// is reported as skipped with that reason (never dropped silently); remove its line with the fix.
export const AWAITING_FIX: Readonly<Record<string, string>> = {
  "mistral-mistral-large-latest-none-image":
    "images from tools for Mistral: its Chat Completions refuses a user message right after tool messages (\"Unexpected role 'user' after role 'tool'\"), where agent puts the image (issue 33 finding 3)",
};
