import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      // The Express adapter's tests once more, against Express 4.
      "packages/express/vitest.express4.config.ts",
      "examples/*/vitest.config.ts",
      "tests/*/vitest.config.ts",
      // The conformance table once more, through the Express adapter on Express 4.
      "tests/conformance/vitest.express4.config.ts",
      "bench/vitest.config.ts",
    ],
  },
});
