import { defineProject } from "vitest/config";

export default defineProject({
  // Compiles every README snippet with the TypeScript compiler: slower than a unit test.
  test: { name: "readme-snippets", include: ["test/**/*.test.ts"], environment: "node", testTimeout: 120_000 },
});
