// Cells that fail because a product fix has not landed yet, each with the fix it waits for. Such a cell
// is reported as skipped with that reason (never dropped silently); remove its line with the fix.
export const AWAITING_FIX: Readonly<Record<string, string>> = {};
