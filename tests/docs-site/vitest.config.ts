import { defineProject } from "vitest/config";

export default defineProject({
  // Builds the whole site once (TypeDoc over every package: about 25 s of CPU, over a minute on a loaded 2-core
  // machine, hence the hook's room), then checks it.
  test: {
    name: "docs-site",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 300_000,
  },
});
