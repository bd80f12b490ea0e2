import { defineProject } from "vitest/config";

// Express 5; vitest.express4.config.ts runs the same tests against Express 4.
export default defineProject({
  test: {
    name: "express",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    provide: { expressMajor: 5 },
  },
});
