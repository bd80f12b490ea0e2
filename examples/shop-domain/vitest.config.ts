import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "shop-domain",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    // Finds redis-server (or builds it once on a machine without one) before the Redis idempotency test starts.
    globalSetup: ["@kirimbayar/test-redis-server/vitest-global-setup"],
  },
});
