import { defineProject } from "vitest/config";

export default defineProject({
  // One table of webhook deliveries run against the Express, Hono and NestJS adapters (and a real Redis).
  test: {
    name: "conformance",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Finds redis-server (or builds it once on a machine without one) before the shared-Redis test starts.
    // And generates the Prisma client of the rows run through the Prisma binding, offline (prisma/generate.mjs).
    globalSetup: ["@kirimbayar/test-redis-server/vitest-global-setup", "./prisma/generate.mjs"],
  },
});
