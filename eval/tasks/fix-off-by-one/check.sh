# The hidden test is copied in only now, so the agent never saw (or changed) it.
cp "$TASK_DIR/check/range.test.ts" . && bun test ./range.test.ts
