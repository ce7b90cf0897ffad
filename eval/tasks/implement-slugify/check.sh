cp "$TASK_DIR/check/slug.test.ts" . && bun test ./slug.test.ts
