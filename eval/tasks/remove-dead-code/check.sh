cp "$TASK_DIR/check/format.test.ts" . && bun test ./format.test.ts && [ "$(bun report.ts)" = "total 12.50 EUR, 12.5% tax" ]
