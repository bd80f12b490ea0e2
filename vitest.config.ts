import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      "examples/*/vitest.config.ts",
      "tests/*/vitest.config.ts",
      "bench/vitest.config.ts",
    ],
  },
});
