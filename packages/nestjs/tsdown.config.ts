import { defineConfig } from "tsdown";
import { libraryConfig } from "../../tsdown.base.ts";

export default defineConfig(
  libraryConfig("node", {
    entry: { index: "src/index.ts" },
    // The CommonJS build loads the optional `@kirimbayar/inbox` (imported lazily by the inbox worker) with
    // `require()`: its CommonJS build, as the app's own `require("@kirimbayar/inbox/pg-boss")`, instead of a second
    // (ESM) copy of it and of core; and Jest, NestJS's default test runner, refuses `import()` without its
    // experimental VM modules.
    outputOptions: (options, format) => (format === "cjs" ? { ...options, dynamicImportInCjs: false } : options),
  }),
);
