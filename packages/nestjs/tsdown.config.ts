import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: false,
  clean: true,
  platform: "node",
  target: "node20.19",
  fixedExtension: false,
  checks: { legacyCjs: false, pluginTimings: false },
});
