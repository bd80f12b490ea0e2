import { defineProject } from "vitest/config";

export default defineProject({
  // The fake provider's webhooks delivered in process (no port) into a real app of each framework.
  test: { name: "in-process", include: ["test/**/*.test.ts"], environment: "node", testTimeout: 30_000 },
});
