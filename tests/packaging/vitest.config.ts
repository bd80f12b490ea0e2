import { defineProject } from "vitest/config";

export default defineProject({
  // Packs and installs real tarballs: slow on purpose, and it must never run in parallel with itself.
  test: {
    name: "packaging",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
