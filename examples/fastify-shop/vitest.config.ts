import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "fastify-shop",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    // Each test of the PGlite flow opens a fresh PGlite database in `beforeEach`: 3–5 s with other work on a 2-core
    // machine, and past the default 10 s hook timeout when it was busier.
    hookTimeout: 30_000,
  },
});
