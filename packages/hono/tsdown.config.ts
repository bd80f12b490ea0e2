import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: false,
  clean: true,
  platform: "neutral",
  target: "es2022",
  fixedExtension: false,
  checks: { legacyCjs: false, pluginTimings: false },
});
