import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "hono-shop",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    // Opening PGlite and a fresh database per test takes seconds on a loaded 2-core machine.
    hookTimeout: 30_000,
  },
});
