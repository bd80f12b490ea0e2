import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  resolve: {
    alias: { "#crypto": fileURLToPath(new URL("./src/crypto/node.ts", import.meta.url)) },
  },
  test: { name: "core", include: ["test/**/*.test.ts"], environment: "node", testTimeout: 20_000 },
});
