import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "mariadb-server", include: ["test/**/*.test.ts"], environment: "node", testTimeout: 20_000 },
});
