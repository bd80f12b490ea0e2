import { defineProject } from "vitest/config";

export default defineProject({
  // Builds the whole site once (TypeDoc over every package, 10-20 s alone, more on a loaded machine), then checks it.
  test: {
    name: "docs-site",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 180_000,
  },
});
