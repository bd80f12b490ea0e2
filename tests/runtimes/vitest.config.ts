import { defineProject } from "vitest/config";

export default defineProject({
  // Bun, Deno and workerd (from their npm packages) serve the Hono webhook app; the Node test process sends the
  // requests and runs the fake provider. Each runtime starts in about a second; the timeouts only bound a hang.
  test: {
    name: "runtimes",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
