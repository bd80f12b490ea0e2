import { defineProject } from "vitest/config";

export default defineProject({
  // Rolling deploys behind nginx and HAProxy: each file starts its own PostgreSQL (and Redis), load balancer and
  // shop processes. KIRIMBAYAR_CHAOS=full runs the full-size campaigns (pnpm chaos).
  test: {
    name: "rolling-deploy",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Finds redis-server (or builds it once on a machine without one) before the Redis-backed runs start.
    globalSetup: ["@kirimbayar/test-redis-server/vitest-global-setup"],
  },
});
