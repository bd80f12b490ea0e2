import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "bench", include: ["lib/**/*.test.mjs"], environment: "node" },
});
