import { defineConfig } from "tsdown";
import { libraryConfig } from "../../tsdown.base.ts";

export default defineConfig(
  libraryConfig("node", {
    entry: { index: "src/index.ts", "pg-boss": "src/pg-boss.ts", bullmq: "src/bullmq.ts", cli: "src/cli.ts" },
  }),
);
