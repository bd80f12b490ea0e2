import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "server-processes", include: ["test/**/*.test.ts"], environment: "node", testTimeout: 20_000 },
});
