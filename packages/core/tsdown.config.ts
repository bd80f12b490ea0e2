import { defineConfig } from "tsdown";

// Entries stay separate so that `@kirimbayar/core/webhooks` never pulls in the API clients, and the crypto
// provider is picked at runtime through the `#crypto` conditional import (node:crypto on Node, Web Crypto elsewhere).
export default defineConfig({
  entry: {
    index: "src/index.ts",
    webhooks: "src/webhooks.ts",
    "crypto-node": "src/crypto/node.ts",
    "crypto-web": "src/crypto/web.ts",
  },
  external: ["#crypto", /^node:/],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: false,
  clean: true,
  platform: "neutral",
  target: "es2022",
  fixedExtension: false,
  checks: { legacyCjs: false, pluginTimings: false },
});
