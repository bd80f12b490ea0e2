import { defineProject } from "vitest/config";

// The inbox engines against real servers: PostgreSQL (pg-boss) and redis-server (BullMQ), started by the tests.
export default defineProject({
  test: {
    name: "inbox",
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
  },
});
