import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  resolve: {
    alias: { "#crypto": fileURLToPath(new URL("./src/crypto/node.ts", import.meta.url)) },
  },
  test: {
    name: "core",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    // Finds redis-server (or builds it once on a machine without one) before the Redis-store tests start.
    // Also generates the Prisma client of the Prisma binding's tests, offline (test/prisma/generate.mjs).
    globalSetup: ["@kirimbayar/test-redis-server/vitest-global-setup", "./test/prisma/generate.mjs"],
  },
});
