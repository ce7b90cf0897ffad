cp "$TASK_DIR/check/duration.test.ts" . && bun test ./duration.test.ts
