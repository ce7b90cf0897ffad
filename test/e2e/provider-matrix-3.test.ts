// Issue 33 item 4, part 3 of the provider matrix: every catalog provider's default full and mini models
// run `agent exec` (compiled binary) through a tool task against the vendor's strict fake. Cells and
// the split over files: test/e2e/provider-matrix/cells.ts; fixtures: test/e2e/fixtures/provider-matrix/.
import { defineMatrixFile } from "./provider-matrix/define.ts";

defineMatrixFile(2);
