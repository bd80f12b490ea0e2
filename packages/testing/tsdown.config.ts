import { defineConfig } from "tsdown";

export default defineConfig([
  {
    entry: { index: "src/index.ts" },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: false,
    clean: true,
    platform: "node",
    target: "node20.19",
    fixedExtension: false,
    checks: { legacyCjs: false, pluginTimings: false },
  },
  {
    // The `kirimbayar-fake` bin: one ESM file with its shebang, no declarations.
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    dts: false,
    sourcemap: false,
    clean: false,
    platform: "node",
    target: "node20.19",
    fixedExtension: false,
    checks: { legacyCjs: false, pluginTimings: false },
  },
]);
